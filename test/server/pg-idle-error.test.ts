// A PostgreSQL connection terminated while idle (a restart, an administrator) must not crash the
// server: the pool discards it and the next query connects afresh.
import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/store/database.ts';
import { postgresUrl } from './harness.ts';

const url = postgresUrl();

describe.skipIf(!url)('PostgreSQL idle connections', () => {
  it('survive being terminated by the server', async () => {
    const schema = `t_idle_${Date.now().toString(36)}`;
    const opened = await openDatabase({ databaseUrl: url!, schema, poolSize: 2 });
    try {
      const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(opened.db);
      const pid = rows[0]!.pid;
      const admin = new pg.Client({ connectionString: url! });
      await admin.connect();
      try {
        await admin.query('select pg_terminate_backend($1)', [pid]);
      } finally {
        await admin.end();
      }
      // Give the pool time to hear of it: without a listener this 'error' event is fatal.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const again = await sql<{ one: number }>`select 1 as one`.execute(opened.db);
      expect(again.rows[0]?.one).toBe(1);
    } finally {
      await sql.raw(`drop schema if exists "${schema}" cascade`).execute(opened.db);
      await opened.close();
    }
  });
});
