// POST /orders with a fresh idempotency key and a fresh listed domain per request: writes per
// second on SQLite and on PostgreSQL (a fresh database), production profile, and beside them
// PostgreSQL's own `pgbench -N` against the same server at the same concurrency (lib/pgbench.ts).
// The three run in alternating rounds, so each round's ratio compares runs made moments apart on a
// machine whose load drifts. Afterwards the store must hold exactly as many orders as there were
// 201 answers, and each dialect's statement profile names where the database time went.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StatementStats } from '../../server/store/statements.ts';
import { mint, signFor } from './lib/partner.ts';
import { runLoad, type LoadResult } from './lib/load.ts';
import { initPgbench, pgbenchVersion, runPgbench, type PgbenchRun } from './lib/pgbench.ts';
import { freshDatabase, localPostgresCpuMicros, postgresUrlOrSkip, type FreshDatabase } from './lib/postgres.ts';
import { newMasterKey, spawnServer, tempDir, type Child } from './lib/processes.ts';
import {
  profileOf,
  pgStatStatements,
  type PgStatStatements,
  type StatementProfileResult,
} from './lib/statement-profile.ts';
import { listedInventory, openServerStore } from './lib/store.ts';
import { median } from './lib/table.ts';

export interface WritesOptions {
  duration: number;
  rounds: number;
  connections: number;
  log: (line: string) => void;
  /** Run the PostgreSQL leg's server under `node --cpu-prof`, writing the profile here (folder `orders-postgres`). */
  profileDir?: string | undefined;
}

export interface WriteFigures {
  dialect: 'sqlite' | 'postgres';
  runs: LoadResult[];
  writesPerSecond: number;
  p50: number;
  p99: number;
  cpuMicrosPerRequest: number;
  created: number;
  ordersInStore: number;
  unexpected: number;
  profile: StatementProfileResult;
  /** PostgreSQL's own CPU per order, µs (median of the rounds); absent on SQLite or a remote server. */
  databaseCpuMicrosPerOrder?: number;
  /** The load generator's CPU per order (signing each request), µs: the rest of the machine's cores. */
  generatorCpuMicrosPerOrder: number;
  /**
   * What the server handed to write calls per order (files and sockets alike: /proc/<pid>/io
   * `wchar` and `syscw`, medians of the rounds); absent where /proc has no such file.
   */
  serverWritesPerOrder?: { bytes: number; calls: number };
}

export interface PgbenchFigures {
  version: string;
  runs: PgbenchRun[];
  tps: number;
  latencyMs: number;
  /** PostgreSQL's own CPU per pgbench transaction, µs (median of the rounds); absent for a remote server. */
  databaseCpuMicrosPerTransaction?: number;
}

export interface WritesResult {
  sqlite: WriteFigures;
  postgres: WriteFigures | 'skipped';
  pgbench: PgbenchFigures | 'skipped';
  /** POST /orders on PostgreSQL over pgbench -N, per round and their median. */
  vsPgbench?: { rounds: number[]; median: number };
  /** Why pg_stat_statements was not used, when it was not. */
  pgStatStatements?: string;
}

const PATH = '/api/partner/v1/orders';
/**
 * Each order takes one domain off the market, so a leg lists a domain for every order it could
 * take: the 2 s warm-up and every round at up to ORDERS_PER_SECOND_BOUND. At 60,000 domains a
 * full run (10 s x 3 rounds) on a machine taking 2,500 orders a second ran out in its third
 * round, and the round's 404s lowered both medians.
 */
const ORDERS_PER_SECOND_BOUND = 4_000;
const inventoryFor = (o: Pick<WritesOptions, 'duration' | 'rounds'>) =>
  Math.max(60_000, Math.ceil(ORDERS_PER_SECOND_BOUND * (2 + o.duration * o.rounds)));

interface Leg {
  dialect: 'sqlite' | 'postgres';
  server: Child;
  run(duration: number): Promise<LoadResult & Spent>;
  /** After the warm-up: the statement profile starts afresh. */
  startProfile(): Promise<void>;
  finish(runs: Array<LoadResult & Spent>, warm: LoadResult): Promise<WriteFigures>;
}

/**
 * CPU spent besides the server's during a run, µs: PostgreSQL's (when local) and this process's;
 * and the server's write calls.
 */
interface Spent {
  databaseCpuMicros: number | undefined;
  generatorCpuMicros: number;
  serverWrites: { bytes: number; calls: number } | undefined;
}

/** The bytes and calls a process has written so far (Linux: /proc/<pid>/io); undefined elsewhere. */
function writesOf(pid: number | undefined): { bytes: number; calls: number } | undefined {
  if (pid === undefined) return undefined;
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(io)?.[1] ?? NaN);
    const figures = { bytes: field('wchar'), calls: field('syscw') };
    return Number.isFinite(figures.bytes) && Number.isFinite(figures.calls) ? figures : undefined;
  } catch {
    return undefined;
  }
}

/** Runs `work` and gives what PostgreSQL (when it runs here), this process and the server spent meanwhile. */
async function spending<T>(serverPid: number | undefined, work: () => Promise<T>): Promise<T & Spent> {
  const db = localPostgresCpuMicros();
  const own = process.cpuUsage();
  const written = writesOf(serverPid);
  const result = await work();
  const ownSpent = process.cpuUsage(own);
  const dbAfter = localPostgresCpuMicros();
  const writtenAfter = writesOf(serverPid);
  return {
    ...result,
    databaseCpuMicros: db !== undefined && dbAfter !== undefined ? dbAfter - db : undefined,
    generatorCpuMicros: ownSpent.user + ownSpent.system,
    serverWrites:
      written && writtenAfter
        ? { bytes: writtenAfter.bytes - written.bytes, calls: writtenAfter.calls - written.calls }
        : undefined,
  };
}

/** The server's write calls per order, medians of the rounds; undefined when /proc could not tell. */
function writesPerOrder(runs: Array<LoadResult & Spent>): { bytes: number; calls: number } | undefined {
  const bytes = medianOf(runs.map((r) => perUnit(r.serverWrites?.bytes, r.statuses['201'] ?? 0)));
  const calls = medianOf(runs.map((r) => perUnit(r.serverWrites?.calls, r.statuses['201'] ?? 0)));
  return bytes !== undefined && calls !== undefined ? { bytes, calls } : undefined;
}

/** Median of the defined values; undefined when there are none. */
const medianOf = (values: Array<number | undefined>) => {
  const known = values.filter((v): v is number => v !== undefined && Number.isFinite(v));
  return known.length > 0 ? median(known) : undefined;
};

export async function benchWrites(o: WritesOptions): Promise<WritesResult> {
  const legs: Leg[] = [];
  let fresh: FreshDatabase | undefined;
  let statements: PgStatStatements | undefined;
  let pgbench: { version: string; url: string } | undefined;
  try {
    legs.push(await startLeg('sqlite', undefined, o, undefined));
    const pgUrl = postgresUrlOrSkip('the PostgreSQL leg of the POST /orders benchmark');
    if (pgUrl) {
      fresh = await freshDatabase(pgUrl, 'bench_orders');
      statements = await pgStatStatements(fresh.url);
      if (statements.unavailable)
        o.log(
          `orders: pg_stat_statements is not available here (${statements.unavailable}); the profile is the server's own timings`,
        );
      legs.push(await startLeg('postgres', fresh.url, o, statements.unavailable ? undefined : statements));
      const version = pgbenchVersion();
      if (!version) console.warn('\n*** pgbench is not on PATH: the POST /orders / pgbench -N ratio is SKIPPED ***\n');
      else {
        o.log(`orders: pgbench -N tables (scale 10) in the same database (${version})`);
        await initPgbench(fresh.url);
        pgbench = { version, url: fresh.url };
      }
    }
    const warm = await Promise.all(legs.map((leg) => leg.run(2)));
    await Promise.all(legs.map((leg) => leg.startProfile()));
    const runs = new Map<Leg, Array<LoadResult & Spent>>(legs.map((leg) => [leg, []]));
    const pgbenchRuns: Array<PgbenchRun & Spent> = [];
    const ratios: number[] = [];
    // pgbench, then the servers, in alternating order: a drift in the machine's load falls on all.
    const steps: Array<Leg | 'pgbench'> = [...(pgbench ? (['pgbench'] as const) : []), ...legs];
    for (let round = 0; round < o.rounds; round++) {
      const order = round % 2 === 0 ? steps : [...steps].reverse();
      let pgOrders: number | undefined;
      let tps: number | undefined;
      for (const step of order) {
        if (step === 'pgbench') {
          const r = await spending(undefined, () =>
            runPgbench((pgbench as { url: string }).url, o.connections, o.duration),
          );
          pgbenchRuns.push(r);
          tps = r.tps;
          o.log(
            `  pgbench -N round ${round + 1}/${o.rounds}: ${Math.round(r.tps)} transactions/s  latency ${r.latencyMs.toFixed(2)} ms`,
          );
          continue;
        }
        const r = await step.run(o.duration);
        runs.get(step)?.push(r);
        const perSecond = (r.statuses['201'] ?? 0) / o.duration;
        if (step.dialect === 'postgres') pgOrders = perSecond;
        o.log(
          `  ${step.dialect} round ${round + 1}/${o.rounds}: ${Math.round(perSecond)} writes/s  p50 ${r.p50} ms  p99 ${r.p99} ms  ${JSON.stringify(r.statuses)}`,
        );
      }
      if (pgOrders !== undefined && tps !== undefined) ratios.push(pgOrders / tps);
    }
    const figures = await Promise.all(legs.map((leg, i) => leg.finish(runs.get(leg) ?? [], warm[i] as LoadResult)));
    legs.length = 0;
    const [sqlite, postgres] = figures as [WriteFigures, WriteFigures | undefined];
    return {
      sqlite,
      postgres: postgres ?? 'skipped',
      pgbench: pgbench
        ? {
            version: pgbench.version,
            runs: pgbenchRuns,
            tps: median(pgbenchRuns.map((r) => r.tps)),
            latencyMs: median(pgbenchRuns.map((r) => r.latencyMs)),
            ...optional(
              'databaseCpuMicrosPerTransaction',
              medianOf(pgbenchRuns.map((r) => perUnit(r.databaseCpuMicros, r.tps * o.duration))),
            ),
          }
        : 'skipped',
      ...(ratios.length > 0 ? { vsPgbench: { rounds: ratios, median: median(ratios) } } : {}),
      ...(statements?.unavailable ? { pgStatStatements: statements.unavailable } : {}),
    };
  } finally {
    await Promise.all(legs.map((leg) => leg.server.stop()));
    await fresh?.drop();
  }
}

/** Per unit (µs, bytes, calls), undefined when either is unknown or there were none. */
const perUnit = (micros: number | undefined, units: number) =>
  micros !== undefined && units > 0 ? micros / units : undefined;

/** `{ [key]: value }`, or nothing when the value is undefined (exactOptionalPropertyTypes). */
const optional = <K extends string>(key: K, value: number | undefined) =>
  (value === undefined ? {} : { [key]: value }) as Partial<Record<K, number>>;

async function startLeg(
  dialect: 'sqlite' | 'postgres',
  databaseUrl: string | undefined,
  o: WritesOptions,
  statements: PgStatStatements | undefined,
): Promise<Leg> {
  const dataDir = tempDir('bench-orders');
  const masterKey = newMasterKey();
  const profileFile = join(dataDir, 'statements.json');
  const inventory = inventoryFor(o);
  o.log(`orders (${dialect}): starting a server with ${inventory.toLocaleString('en-US')} sandbox domains`);
  const server: Child = await spawnServer(
    {
      dataDir,
      masterKey,
      validateResponses: false,
      inventorySize: inventory,
      ...(databaseUrl ? { databaseUrl } : {}),
      extra: { STATEMENT_PROFILE: profileFile },
    },
    o.profileDir && dialect === 'postgres'
      ? ['--cpu-prof', `--cpu-prof-dir=${join(o.profileDir, 'orders-postgres')}`]
      : [],
  );
  const store = await openServerStore({ dataDir, databaseUrl, masterKey });
  try {
    const credential = await mint(server.url);
    const domains = await listedInventory(store, inventory);
    let next = 0;
    const build = () => {
      const listing = domains[next++ % domains.length];
      if (!listing) throw new Error('no inventory');
      const body = JSON.stringify({
        domain: listing.domain,
        expected_price: listing.price_cents,
        currency: listing.currency,
        buyer: { email: 'bench@example.org' },
      });
      return {
        headers: { 'content-type': 'application/json', ...signFor(credential, 'POST', PATH, body, randomUUID()) },
        body,
      };
    };
    return {
      dialect,
      server,
      run: (duration) =>
        spending(server.child.pid, () =>
          runLoad({
            pid: server.child.pid,
            url: server.url,
            connections: o.connections,
            duration,
            method: 'POST',
            path: PATH,
            build,
          }),
        ),
      async startProfile() {
        server.child.kill('SIGUSR2');
        await statements?.reset();
      },
      async finish(runs, warm) {
        if (next > domains.length)
          o.log(
            `  warning: ${dialect} ran out of inventory (${next} requests for ${domains.length} domains); later answers are 404`,
          );
        const created = runs.reduce((n, r) => n + (r.statuses['201'] ?? 0), 0);
        const count = await store.db
          .selectFrom('orders')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        await store.close();
        // Stopping the server writes its profile (scripts/bench/serve.ts).
        await server.stop();
        const timings = JSON.parse(readFileSync(profileFile, 'utf8')) as StatementStats[];
        const written = writesPerOrder(runs);
        const fromServer = statements ? await statements.read() : undefined;
        return {
          dialect,
          runs,
          writesPerSecond: median(runs.map((r) => (r.statuses['201'] ?? 0) / o.duration)),
          p50: median(runs.map((r) => r.p50)),
          p99: median(runs.map((r) => r.p99)),
          cpuMicrosPerRequest: median(runs.map((r) => r.cpuMicrosPerRequest)),
          ...(dialect === 'postgres'
            ? optional(
                'databaseCpuMicrosPerOrder',
                medianOf(runs.map((r) => perUnit(r.databaseCpuMicros, r.statuses['201'] ?? 0))),
              )
            : {}),
          generatorCpuMicrosPerOrder: median(runs.map((r) => r.generatorCpuMicros / (r.statuses['201'] ?? NaN))),
          ...(written ? { serverWritesPerOrder: written } : {}),
          // The warm-up's orders are in the store too.
          created: created + (warm.statuses['201'] ?? 0),
          ordersInStore: Number(count.n),
          unexpected: runs.reduce(
            (n, r) =>
              n +
              r.errors +
              r.timeouts +
              Object.entries(r.statuses).reduce((m, [code, c]) => m + (code === '201' ? 0 : c), 0),
            0,
          ),
          profile: fromServer
            ? profileOf('pg_stat_statements', fromServer, created)
            : profileOf('client timings', timings, created),
        };
      },
    };
  } catch (err) {
    await store.close();
    await server.stop();
    throw err;
  }
}
