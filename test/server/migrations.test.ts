// The migrator: each pending migration once, in order, with its bookkeeping row; a database
// migrated by Kysely's own Migrator (the bookkeeping table it made) is taken as it is; and, on a
// PostgreSQL shared with others, schemas created and dropped meanwhile by other clients never
// make a start fail (Kysely's Migrator introspected every schema and failed when one vanished).
import { randomBytes } from 'node:crypto';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/store/database.ts';
import { migrate, migrations } from '../../server/store/migrations.ts';
import { postgresUrl } from './harness.ts';

const PG = postgresUrl();

describe('migrate (SQLite)', () => {
  it('applies every migration once, in order, and again is a no-op', async () => {
    const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new BetterSqlite3(':memory:') }) });
    try {
      await migrate(db, 'sqlite');
      await migrate(db, 'sqlite');
      const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
      expect(rows.map((r) => r.name)).toEqual(Object.keys(migrations('sqlite')));
    } finally {
      await db.destroy();
    }
  });

  it('012 puts on each listing the reservation that ends last in real time, whatever the test clocks', async () => {
    const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new BetterSqlite3(':memory:') }) });
    try {
      const all = migrations('sqlite');
      const before = Object.fromEntries(Object.entries(all).filter(([name]) => name < '012'));
      expect(
        (await new Migrator({ db, provider: { getMigrations: async () => before } }).migrateToLatest()).error,
      ).toBeUndefined();
      const now = Date.parse('2026-11-29T12:00:00Z');
      const year = 366 * 86_400_000;
      // ptn_ahead's test clock runs a year ahead: its quote ended an hour ago in real time, yet its
      // end is the largest number. ptn_now quoted since, and its reservation is the live one.
      await sql`insert into partners (id, environment, clock_offset_ms, created_at) values
        ('ptn_ahead', 'sandbox', ${year}, 0), ('ptn_now', 'sandbox', 0, 0)`.execute(db);
      await sql`insert into inventory (environment, domain, label, tld, price_cents, floor_cents, currency, status, category, keywords, listed_at)
        values ('sandbox', 'held.com', 'held', 'com', 100, 50, 'USD', 'listed', 'uncategorised', '[]', 0),
               ('sandbox', 'free.com', 'free', 'com', 100, 50, 'USD', 'listed', 'uncategorised', '[]', 0)`.execute(db);
      await sql`insert into quotes (quote_id, partner_id, environment, domain, price_cents, expires_at, created_at) values
        ('qt_1', 'ptn_ahead', 'sandbox', 'held.com', 100, ${now + year - 3_600_000}, 0),
        ('qt_2', 'ptn_now', 'sandbox', 'held.com', 100, ${now + 300_000}, 0)`.execute(db);
      await migrate(db, 'sqlite');
      const { rows } = await sql<{ domain: string; reserved_by: string | null; reserved_until: number | null }>`
        select domain, reserved_by, reserved_until from inventory order by domain`.execute(db);
      expect(rows).toEqual([
        { domain: 'free.com', reserved_by: null, reserved_until: null },
        { domain: 'held.com', reserved_by: 'ptn_now', reserved_until: now + 300_000 },
      ]);
    } finally {
      await db.destroy();
    }
  });

  it('013 keeps only listed rows in the listing indexes, with the status out of their keys; down restores them', async () => {
    const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new BetterSqlite3(':memory:') }) });
    const listingIndexes = async () => {
      const { rows } = await sql<{ name: string; partial: number }>`
        select name, partial from pragma_index_list('inventory') where name like 'inventory_listing_%' order by name`.execute(
        db,
      );
      return Promise.all(
        rows.map(async (r) => {
          const { rows: key } = await sql<{ name: string }>`
            select name from pragma_index_info(${r.name}) order by seqno`.execute(db);
          return { name: r.name, partial: r.partial === 1, key: key.map((k) => k.name) };
        }),
      );
    };
    try {
      await migrate(db, 'sqlite');
      const after = await listingIndexes();
      expect(after.map((i) => i.name)).toEqual([
        'inventory_listing_domain',
        'inventory_listing_newest',
        'inventory_listing_price',
        'inventory_listing_price_desc',
      ]);
      for (const i of after) {
        expect(i.partial, i.name).toBe(true);
        expect(i.key, i.name).not.toContain('status');
      }
      await migrations('sqlite')['013_listed_only_indexes']?.down?.(db);
      for (const i of await listingIndexes()) {
        expect(i.partial, i.name).toBe(false);
        expect(i.key[1], i.name).toBe('status');
      }
    } finally {
      await db.destroy();
    }
  });

  it("accepts a database that Kysely's Migrator migrated part of, and completes it", async () => {
    const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new BetterSqlite3(':memory:') }) });
    try {
      const all = migrations('sqlite');
      const firstThree = Object.fromEntries(Object.entries(all).slice(0, 3));
      const old = new Migrator({ db, provider: { getMigrations: async () => firstThree } });
      expect((await old.migrateToLatest()).error).toBeUndefined();
      await migrate(db, 'sqlite');
      const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
      expect(rows.map((r) => r.name)).toEqual(Object.keys(all));
    } finally {
      await db.destroy();
    }
  });

  it('refuses a database migrated by a newer version (a migration it does not know)', async () => {
    const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new BetterSqlite3(':memory:') }) });
    try {
      await migrate(db, 'sqlite');
      await sql`insert into kysely_migration (name, timestamp) values ('999_from_the_future', 'x')`.execute(db);
      await expect(migrate(db, 'sqlite')).rejects.toThrow(/999_from_the_future/);
    } finally {
      await db.destroy();
    }
  });
});

describe.runIf(PG)('migrate (PostgreSQL)', () => {
  it('starts every time while other clients create and drop schemas of their own', async () => {
    const churn = new pg.Pool({ connectionString: PG, max: 4 });
    let stop = false;
    const churning = (async () => {
      const lanes = [0, 1, 2, 3].map(async () => {
        while (!stop) {
          const name = `churn_${randomBytes(5).toString('hex')}`;
          await churn.query(`create schema ${name}; create table ${name}.t (id serial primary key, v text)`);
          await churn.query(`drop schema ${name} cascade`);
        }
      });
      await Promise.all(lanes);
    })();
    const schemas: string[] = [];
    try {
      for (let round = 0; round < 3; round++) {
        const opened = await Promise.all(
          [0, 1, 2, 3].map(async () => {
            const schema = `mig_${randomBytes(6).toString('hex')}`;
            schemas.push(schema);
            return openDatabase({ databaseUrl: PG, schema, poolSize: 2 });
          }),
        );
        await Promise.all(opened.map((o) => o.close()));
      }
    } finally {
      stop = true;
      await churning;
      for (const schema of schemas) await churn.query(`drop schema if exists ${schema} cascade`);
      await churn.end();
    }
  }, 120_000);

  it('keeps its bookkeeping in its own schema', async () => {
    const schema = `mig_${randomBytes(6).toString('hex')}`;
    const opened = await openDatabase({ databaseUrl: PG, schema, poolSize: 2 });
    const db = new Kysely<unknown>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: PG, max: 1 }) }),
    });
    try {
      const { rows } = await sql<{
        n: number;
      }>`select count(*)::int as n from ${sql.table(`${schema}.kysely_migration`)}`.execute(db);
      expect(rows[0]?.n).toBe(Object.keys(migrations('postgres')).length);
    } finally {
      await opened.close();
      await sql.raw(`drop schema ${schema} cascade`).execute(db);
      await db.destroy();
    }
  });
});
