// A fresh PostgreSQL database per run, dropped afterwards. A database rather than a schema: the
// server takes its location from DATABASE_URL alone, and a database of its own keeps the
// migrations' bookkeeping and every table apart from other runs and from the test suites.
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { TICKS_PER_SECOND } from './load.ts';

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

/**
 * CPU time, µs, of the PostgreSQL server's processes on this machine so far (user and system,
 * with that of its exited children, such as the backends of clients that have disconnected);
 * undefined when none runs here (a database on another host). Read from Linux /proc, like the
 * server's own CPU time (load.ts).
 */
export function localPostgresCpuMicros(): number | undefined {
  let total = 0;
  let found = false;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  for (const pid of entries) {
    if (!/^\d+$/.test(pid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile: its time is in its parent's children fields
    }
    const open = stat.indexOf('(');
    const close = stat.lastIndexOf(')');
    if (stat.slice(open + 1, close) !== 'postgres') continue;
    found = true;
    // Fields 14 to 17: utime, stime, cutime, cstime, in clock ticks.
    const fields = stat.slice(close + 2).split(' ');
    for (const i of [11, 12, 13, 14]) total += (Number(fields[i]) * 1_000_000) / TICKS_PER_SECOND;
  }
  return found ? total : undefined;
}
