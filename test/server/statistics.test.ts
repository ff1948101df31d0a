// The server's own statistics refresh on PostgreSQL (server/store/statistics.ts): a table is
// analysed once the rows changed since its last analysis exceed autovacuum's default threshold
// (50 plus a tenth of its rows), and not before, whatever the deployment's autovacuum does.
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type OpenedDatabase } from '../../server/store/database.ts';
import { refreshStatistics } from '../../server/store/statistics.ts';
import { postgresUrl } from './harness.ts';

const pg = postgresUrl();

describe.skipIf(!pg)('statistics refresh (PostgreSQL)', () => {
  let opened: OpenedDatabase;
  const schema = `t_${randomBytes(6).toString('hex')}`;
  beforeAll(async () => {
    opened = await openDatabase({ databaseUrl: pg as string, schema, poolSize: 2 });
  });
  afterAll(async () => {
    await sql.raw(`drop schema if exists "${schema}" cascade`).execute(opened.db);
    await opened.close();
  });

  const addPartners = (from: number, count: number) =>
    opened.db
      .insertInto('partners')
      .values(
        Array.from({ length: count }, (_, i) => ({
          id: `p${from + i}`,
          environment: 'sandbox' as const,
          clock_offset_ms: 0,
          created_at: 1,
        })),
      )
      .execute();

  /** Changes reach pg_stat_user_tables a moment after their commit: waits until `n` are counted. */
  async function counted(n: number): Promise<void> {
    const until = Date.now() + 30_000;
    for (;;) {
      const { rows } = await sql<{
        n: number | string;
      }>`select n_mod_since_analyze as n from pg_stat_user_tables where schemaname = current_schema() and relname = 'partners'`.execute(
        opened.db,
      );
      if (Number(rows[0]?.n) === n) return;
      if (Date.now() > until)
        throw new Error(`pg_stat_user_tables never counted ${n} changes to partners (last: ${rows[0]?.n})`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  const reltuples = async () =>
    Number(
      (
        await sql<{ n: number }>`select reltuples as n from pg_class where oid = 'partners'::regclass`.execute(
          opened.db,
        )
      ).rows[0]?.n,
    );

  it('analyses a table once its changes pass 50 plus a tenth of its rows, and not before', async () => {
    await addPartners(0, 50);
    await counted(50);
    expect(await refreshStatistics(opened.db)).not.toContain('partners');
    await addPartners(50, 1);
    await counted(51);
    expect(await refreshStatistics(opened.db)).toContain('partners');
    expect(await reltuples()).toBe(51);
    // 51 rows now: the next analysis waits for more than 50 + 5.1 changes.
    await addPartners(51, 55);
    await counted(55);
    expect(await refreshStatistics(opened.db)).not.toContain('partners');
    await addPartners(106, 1);
    await counted(56);
    expect(await refreshStatistics(opened.db)).toContain('partners');
    expect(await reltuples()).toBe(107);
  }, 120_000);
});
