// The signed GET /availability held at a steady rate for over a minute, on SQLite, by a server
// restarted onto a full nonce log: what the other legs' few seconds cannot show. At a steady
// load the log holds every nonce of the six-minute retention (900,000 at 2,500 signed requests a
// second), and two moments then cost in proportion to it: a restart (the ledger learns the log)
// and the purge every minute (a minute's rows expire). Each once held the event loop, or the
// requests, for 0.6 to 6 s (bench/README.md, "Issue 36", eighth and ninth sessions). The log is
// seeded directly, a sixth of it already expired, so that the first purge has a minute's rows to
// delete; the load runs in slices until that purge has run.
import { rmSync } from 'node:fs';
import { sql } from 'kysely';
import { mint, signFor } from './lib/partner.ts';
import { runLoad } from './lib/load.ts';
import { newMasterKey, spawnServer, tempDir, type Child } from './lib/processes.ts';
import { openServerStore } from './lib/store.ts';

/**
 * The slowest answer allowed after the first slice, on a quiet machine. The purge in one statement
 * gave 118 ms here (616 ms of stall on a slower machine); purged a slice at a time with a pause
 * between, 16 to 21 ms (bench/README.md, "Issue 36, ninth session").
 */
export const STEADY_MAX_MS = 100;

/** The server's maintenance interval (server/embedded.ts): the first purge runs this long after it listens. */
const MAINTENANCE_MS = 60_000;
const PATH = '/api/partner/v1/availability?domain=example.com';

export interface SteadyOptions {
  /** Rows in the nonce log when the server starts; a sixth of them already expired. */
  logRows: number;
  /** Signed requests per second offered over all connections. */
  rate: number;
  connections: number;
  /** Seconds per slice of the load; each slice gives its own p99 and slowest answer. */
  sliceSeconds: number;
  log: (line: string) => void;
}

export interface SteadySlice {
  /** Seconds since the server said it was ready, at the slice's start. */
  from: number;
  rps: number;
  p99: number;
  max: number;
  /** Answers that were not 200, errors and timeouts. */
  unexpected: number;
}

export interface SteadyResult {
  logRows: number;
  sliceSeconds: number;
  expired: number;
  rate: number;
  /** Spawn to READY of the restarted server, ms. */
  readyMs: number;
  slices: SteadySlice[];
  /** The slowest answer of the first slice: a cold process's first seconds under load. */
  firstSliceMaxMs: number;
  /** The slowest answer of every later slice (the purge's among them). */
  laterMaxMs: number;
  /** The largest p99 of the later slices. */
  laterP99Ms: number;
  /** Seeded expired rows still in the log after the run: 0 once the purge has run. */
  expiredLeft: number;
  unexpected: number;
}

export async function benchSteady(o: SteadyOptions): Promise<SteadyResult> {
  const dataDir = tempDir('bench-steady');
  const masterKey = newMasterKey();
  let server: Child | undefined;
  try {
    o.log(`steady: a server to create the store and a credential`);
    server = await spawnServer({ dataDir, masterKey, validateResponses: false });
    const credential = await mint(server.url);
    await server.stop();
    server = undefined;

    const seededAt = Date.now();
    const expired = Math.floor(o.logRows / 6);
    o.log(
      `steady: seeding the nonce log with ${o.logRows.toLocaleString('en-US')} rows (${expired.toLocaleString('en-US')} expired)`,
    );
    const store = await openServerStore({ dataDir, masterKey });
    try {
      // Oldest first, as traffic writes them, their ends spread evenly: the expired ones over the
      // minute before, the others over the four minutes from two minutes on (past the run). The
      // ledger forgets a second's pairs at a time, so one second holding them all would not be
      // a steady load's shape.
      const live = o.logRows - expired;
      await sql`with recursive n(i) as (select 0 union all select i + 1 from n where i < ${o.logRows - 1})
        insert into nonce_log (key_id, nonce, expires_at)
        select ${credential.keyId}, lower(hex(randomblob(16))), case when i < ${expired}
          then ${seededAt - 61_000} + i * 60000 / ${expired}
          else ${seededAt + 120_000} + (i - ${expired}) * 240000 / ${live} end from n`.execute(store.db);
    } finally {
      await store.close();
    }

    o.log(`steady: restarting the server onto the log, then ${o.rate} signed GET/s until its first purge has run`);
    const spawned = performance.now();
    server = await spawnServer({ dataDir, masterKey, validateResponses: false });
    const ready = performance.now();
    const running = server;
    const slices: SteadySlice[] = [];
    // Past the first purge by a slice, so that the purge's slice is complete.
    while (performance.now() - ready < MAINTENANCE_MS + o.sliceSeconds * 1000) {
      const from = (performance.now() - ready) / 1000;
      const r = await runLoad({
        pid: running.child.pid,
        url: running.url,
        connections: o.connections,
        duration: o.sliceSeconds,
        overallRate: o.rate,
        path: PATH,
        build: () => ({ headers: signFor(credential, 'GET', PATH) }),
      });
      const unexpected =
        r.errors + r.timeouts + Object.entries(r.statuses).reduce((n, [code, c]) => n + (code === '200' ? 0 : c), 0);
      slices.push({ from, rps: r.rps, p99: r.p99, max: r.max, unexpected });
      o.log(
        `  ${from.toFixed(0).padStart(3)} s: ${Math.round(r.rps)} req/s  p99 ${r.p99} ms  max ${r.max} ms${unexpected ? `  ${unexpected} unexpected` : ''}`,
      );
    }
    await server.stop();
    server = undefined;

    const audit = await openServerStore({ dataDir, masterKey });
    let expiredLeft: number;
    try {
      const row = await audit.db
        .selectFrom('nonce_log')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('expires_at', '<', seededAt)
        .executeTakeFirstOrThrow();
      expiredLeft = Number(row.n);
    } finally {
      await audit.close();
    }
    const later = slices.slice(1);
    return {
      logRows: o.logRows,
      sliceSeconds: o.sliceSeconds,
      expired,
      rate: o.rate,
      readyMs: ready - spawned,
      slices,
      firstSliceMaxMs: slices[0]?.max ?? NaN,
      laterMaxMs: Math.max(...later.map((s) => s.max)),
      laterP99Ms: Math.max(...later.map((s) => s.p99)),
      expiredLeft,
      unexpected: slices.reduce((n, s) => n + s.unexpected, 0),
    };
  } finally {
    await server?.stop();
    // Its seeded log is about 100 MB.
    rmSync(dataDir, { recursive: true, force: true });
  }
}
