// PostgreSQL statements prepared once per connection (server/store/named-statements.ts), checked
// against PostgreSQL's own record of a session's prepared statements (pg_prepared_statements).
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type OpenedDatabase } from '../../server/store/database.ts';
import { namedStatements } from '../../server/store/named-statements.ts';
import { postgresUrl } from './harness.ts';

const url = postgresUrl();

/** The texts this session has prepared. */
async function prepared(db: Kysely<unknown>): Promise<string[]> {
  const { rows } = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(db);
  return rows.map((r) => r.statement);
}

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function openOne(): Promise<{ opened: OpenedDatabase; schema: string }> {
  const schema = `t_named_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6)}`;
  // One connection: every statement runs in the session whose prepared statements are read.
  const opened = await openDatabase({ databaseUrl: url!, schema, poolSize: 1 });
  cleanups.push(async () => {
    await sql.raw(`drop schema if exists "${schema}" cascade`).execute(opened.db);
    await opened.close();
  });
  return { opened, schema };
}

describe.skipIf(!url)('named PostgreSQL statements', () => {
  it('prepares a statement with parameters once, and runs it again by name', async () => {
    const { opened } = await openOne();
    const db = opened.db as unknown as Kysely<unknown>;
    const query = (n: number) => sql<{ doubled: number }>`select ${n}::int * 2 as doubled`.execute(db);
    expect((await query(2)).rows[0]?.doubled).toBe(4);
    expect((await query(5)).rows[0]?.doubled).toBe(10);
    const texts = (await prepared(db)).filter((t) => t.includes('* 2 as doubled'));
    expect(texts).toEqual(['select $1::int * 2 as doubled']);
  });

  it('leaves statements without parameters and statements inside a transaction unnamed', async () => {
    const { opened } = await openOne();
    const db = opened.db as unknown as Kysely<unknown>;
    await sql`select 41 + 1 as unnamed_constant`.execute(db);
    await opened.db.transaction().execute(async (trx) => {
      await sql`select ${7}::int as inside_transaction`.execute(trx);
    });
    // After the transaction, statements are named again.
    await sql`select ${8}::int as after_transaction`.execute(db);
    const texts = await prepared(db);
    expect(texts.some((t) => t.includes('unnamed_constant'))).toBe(false);
    expect(texts.some((t) => t.includes('inside_transaction'))).toBe(false);
    expect(texts.some((t) => t.includes('after_transaction'))).toBe(true);
  });

  it('runs a statement whose result columns changed under it (another instance migrated) unnamed, and keeps it so', async () => {
    const { opened, schema } = await openOne();
    const db = opened.db as unknown as Kysely<unknown>;
    await sql`create table things (a int)`.execute(db);
    await sql`insert into things values (1)`.execute(db);
    const read = () => sql<Record<string, unknown>>`select * from things where a = ${1}`.execute(db);
    expect((await read()).rows).toEqual([{ a: 1 }]);
    const other = new pg.Client({ connectionString: url! });
    await other.connect();
    try {
      await other.query(`alter table "${schema}".things add column b int default 2`);
    } finally {
      await other.end();
    }
    expect((await read()).rows).toEqual([{ a: 1, b: 2 }]);
    expect((await read()).rows).toEqual([{ a: 1, b: 2 }]);
  });

  it('names at most the given number of distinct texts per pool', async () => {
    const pool = new pg.Pool({ connectionString: url!, max: 1 });
    const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: namedStatements(pool, 2) }) });
    cleanups.push(() => db.destroy());
    for (const column of ['first_text', 'second_text', 'third_text'])
      await sql`select ${1}::int as ${sql.ref(column)}`.execute(db);
    const texts = await prepared(db);
    expect(texts.filter((t) => /first_text|second_text/.test(t))).toHaveLength(2);
    expect(texts.some((t) => t.includes('third_text'))).toBe(false);
  });
});
