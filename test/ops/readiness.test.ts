// The readiness checks on each store (SQLite, and PostgreSQL in a schema of its own when
// DATABASE_URL is set): one query proves the store answers and its migrations are this build's.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadiness } from '../../server/ops/health.ts';
import { startHarness, type Harness } from '../server/harness.ts';
import { databases } from '../server/support/http.ts';

describe.each(databases())('readiness checks ($name)', ({ databaseUrl }) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ databaseUrl, inventorySize: 20, dispatch: false });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('is ready on a migrated store, not ready (migrations) when the database has one this build does not know', async () => {
    const readiness = createReadiness(h.store);
    expect(await readiness.check()).toEqual({
      status: 'ready',
      checks: { store: true, migrations: true, search_index: true, not_draining: true },
      failed: [],
    });
    await sql`insert into kysely_migration (name, timestamp) values ('999_newer_build', 'now')`.execute(h.store.db);
    try {
      expect(await readiness.check()).toMatchObject({ status: 'not_ready', failed: ['migrations'] });
    } finally {
      await sql`delete from kysely_migration where name = '999_newer_build'`.execute(h.store.db);
    }
    readiness.startDrain();
    expect(await readiness.check()).toMatchObject({ status: 'not_ready', failed: ['not_draining'] });
  });

  it('fails store and migrations when the database does not answer', async () => {
    const readiness = createReadiness({
      dialect: h.store.dialect,
      db: { executeQuery: () => Promise.reject(new Error('connection refused')) } as unknown as Harness['store']['db'],
    });
    expect(await readiness.check()).toMatchObject({
      status: 'not_ready',
      checks: { store: false, migrations: false },
      failed: ['store', 'migrations'],
    });
  });
});
