// Hot-path queries built once by Kysely and bound per call (server/store/prepared.ts), run
// directly on a SQLite file, through Kysely in memory and on PostgreSQL, and inside transactions.
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { tempFolder } from '../support/temp-folder.ts';
import { openDatabase, type OpenedDatabase } from '../../server/store/database.ts';
import { prepared } from '../../server/store/prepared.ts';
import { postgresUrl } from './harness.ts';

const pg = postgresUrl();
const databases: Array<[string, () => Promise<OpenedDatabase>]> = [
  ['sqlite in a file (direct)', () => openDatabase({ dataDir: tempFolder('prepared-') })],
  ['sqlite in memory', () => openDatabase({ filename: ':memory:' })],
  ...(pg
    ? ([['postgres', () => openDatabase({ databaseUrl: pg, schema: `t_${randomBytes(6).toString('hex')}` })]] as Array<
        [string, () => Promise<OpenedDatabase>]
      >)
    : []),
];

describe.each(databases)('prepared queries on %s', (_name, open) => {
  let opened: OpenedDatabase | undefined;
  afterEach(async () => {
    await opened?.close();
    opened = undefined;
  });

  const seed = async (db: OpenedDatabase['db']) => {
    await db
      .insertInto('partners')
      .values([
        { id: 'p1', environment: 'sandbox', clock_offset_ms: 0, created_at: 1 },
        { id: 'p2', environment: 'live', clock_offset_ms: 0, created_at: 2 },
        { id: 'p3', environment: 'sandbox', clock_offset_ms: 0, created_at: 3 },
      ])
      .execute();
  };

  it('binds each call’s arguments, keeps the builder’s own constants, and matches the plain query', async () => {
    opened = await open();
    await seed(opened.db);
    const byEnvironment = prepared(opened.db, opened.direct, 2, (q, environment: string, after: number) =>
      q
        .selectFrom('partners')
        .select(['id', 'created_at'])
        .where('environment', '=', environment as 'sandbox')
        .where(sql<boolean>`created_at > ${after}`)
        .where('id', '!=', 'p9')
        .orderBy('id')
        .limit(2),
    );
    expect(await byEnvironment('sandbox', 0)).toEqual([
      { id: 'p1', created_at: 1 },
      { id: 'p3', created_at: 3 },
    ]);
    expect(await byEnvironment('sandbox', 1)).toEqual([{ id: 'p3', created_at: 3 }]);
    expect(await byEnvironment('live', 0)).toEqual([{ id: 'p2', created_at: 2 }]);
    const plain = await opened.db
      .selectFrom('partners')
      .select(['id', 'created_at'])
      .where('environment', '=', 'live')
      .orderBy('id')
      .execute();
    expect(await byEnvironment('live', -1)).toEqual(plain);
  });

  it('inside a transaction it reads the transaction’s own writes', async () => {
    opened = await open();
    const { db, direct } = opened;
    const byId = prepared(db, direct, 1, (q, id: string) => q.selectFrom('partners').select('id').where('id', '=', id));
    await db
      .transaction()
      .execute(async (trx) => {
        await trx
          .insertInto('partners')
          .values({ id: 'in-tx', environment: 'sandbox', clock_offset_ms: 0, created_at: 1 })
          .execute();
        expect(
          await prepared(trx, undefined, 1, (q, id: string) =>
            q.selectFrom('partners').select('id').where('id', '=', id),
          )('in-tx'),
        ).toEqual([{ id: 'in-tx' }]);
        throw new Error('roll back');
      })
      .catch((err: unknown) => expect((err as Error).message).toBe('roll back'));
    expect(await byId('in-tx')).toEqual([]);
  });

  it('refuses a builder that writes an argument into the SQL text or leaves one unbound', async () => {
    opened = await open();
    const intoText = prepared(opened.db, opened.direct, 1, (q, column: string) =>
      q.selectFrom('partners').select(sql.ref(column).as('x')),
    );
    await expect(intoText('id')).rejects.toThrow(/puts an argument into its SQL text/);
    const unbound = prepared(opened.db, opened.direct, 2, (q, id: string, _environment: string) =>
      q.selectFrom('partners').select('id').where('id', '=', id),
    );
    await expect(unbound('p1', 'sandbox')).rejects.toThrow(/does not bind argument 1/);
  });
});

describe('a direct run while a transaction holds the SQLite connection', () => {
  it('is refused, so the caller goes through Kysely and never joins the transaction', async () => {
    const opened = await openDatabase({ dataDir: tempFolder('prepared-tx-') });
    try {
      const { db, direct } = opened;
      if (!direct) throw new Error('a SQLite file has direct access');
      const query = db.selectFrom('partners').select('id').compile();
      expect(direct.run(query)).toEqual([]);
      let inside: unknown[] | undefined = [];
      let during: unknown = 'not run';
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto('partners')
          .values({ id: 'x', environment: 'sandbox', clock_offset_ms: 0, created_at: 1 })
          .execute();
        inside = direct.run(query);
        during = direct.transaction(() => 'ran');
      });
      expect(inside).toBeUndefined();
      expect(during).toEqual({ ran: false });
      expect(direct.run(query)).toEqual([{ id: 'x' }]);
    } finally {
      await opened.close();
    }
  });
});
