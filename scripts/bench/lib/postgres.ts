// A fresh PostgreSQL database per run, dropped afterwards. A database rather than a schema: the
// server takes its location from DATABASE_URL alone, and a database of its own keeps the
// migrations' bookkeeping and every table apart from other runs and from the test suites.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface FreshDatabase {
  url: string;
  drop(): Promise<void>;
}

/** The PostgreSQL URL when DATABASE_URL is set; otherwise says loudly what is skipped. */
export function postgresUrlOrSkip(what: string): string | undefined {
  const url = process.env.DATABASE_URL;
  if (!url) console.warn(`\n*** DATABASE_URL is not set: ${what} is SKIPPED ***\n`);
  return url || undefined;
}

export async function freshDatabase(serverUrl: string, label: string): Promise<FreshDatabase> {
  const name = `${label}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      try {
        await c.query(`drop database if exists "${name}" with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}
