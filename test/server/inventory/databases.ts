// The databases the inventory tests run on: SQLite in memory always, PostgreSQL when
// DATABASE_URL is set, each test file in its own freshly created schema so files running in
// parallel never see each other's rows.
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { openDatabase, type OpenedDatabase } from '../../../server/store/database.ts';

export const DATABASE_URL = process.env.DATABASE_URL || undefined;

export interface TestDatabase {
  name: 'sqlite' | 'postgres';
  /** False when the leg cannot run here; use with describe.skipIf. */
  available: boolean;
  open(): Promise<OpenedDatabase>;
}

let warned = false;

/** Both legs; warns once, loudly, when the PostgreSQL one will be skipped. */
export function testDatabases(): TestDatabase[] {
  if (!DATABASE_URL && !warned) {
    warned = true;
    console.warn(
      '\n**************************************************************************\n' +
        '*  DATABASE_URL is not set: the PostgreSQL leg of the inventory tests    *\n' +
        '*  is SKIPPED. Run with DATABASE_URL=postgres://... to cover it.         *\n' +
        '**************************************************************************\n',
    );
  }
  return [
    { name: 'sqlite', available: true, open: () => openDatabase({ filename: ':memory:' }) },
    {
      name: 'postgres',
      available: DATABASE_URL !== undefined,
      async open() {
        if (!DATABASE_URL) throw new Error('DATABASE_URL is not set');
        const schema = `inventory_test_${process.pid}_${randomBytes(4).toString('hex')}`;
        const opened = await openDatabase({ databaseUrl: DATABASE_URL, schema, poolSize: 4 });
        return {
          ...opened,
          async close() {
            await sql.raw(`drop schema if exists "${schema}" cascade`).execute(opened.db);
            await opened.close();
          },
        };
      },
    },
  ];
}
