// The signed partner GET /availability of the multi-instance deployment: the reference server
// (production profile) on PostgreSQL, beside the same server on embedded SQLite, PostgreSQL's own
// read-only `pgbench -S` with the same clients, and two server processes on the one PostgreSQL
// database with the load split across both. Every signed request writes its nonce and counts its
// rate-limit class in the database (shared by the instances: x-signing `nonce-store`), so the
// PostgreSQL leg over the SQLite one is what those writes cost across the network, and the two
// processes over the one show whether instances add up. Legs alternate (the order rotates every
// round) and ratios are taken within a round.
//
// On 2 cores the two processes cannot double the one: they share the cores with PostgreSQL's
// backends and with the load generator (this process). The ceiling the cores allow is printed
// beside them: 2 cores' worth of µs over the CPU µs per answer of the server processes alone
// (PostgreSQL and the load generator not counted, so the true ceiling is lower).
import { cpus } from 'node:os';
import { figuresOf, type TargetFigures } from './availability.ts';
import { mint, signFor, signedRequest, type Credential } from './lib/partner.ts';
import { runLoad, type LoadResult } from './lib/load.ts';
import { initPgbench, pgbenchVersion, runPgbench, type PgbenchRun } from './lib/pgbench.ts';
import { freshDatabase, postgresUrlOrSkip, type FreshDatabase } from './lib/postgres.ts';
import { newMasterKey, spawnServer, tempDir, type Child } from './lib/processes.ts';
import { listedInventory, openServerStore } from './lib/store.ts';
import { median } from './lib/table.ts';

export interface AvailabilityPgOptions {
  duration: number;
  rounds: number;
  connections: number;
  log: (line: string) => void;
}

/** Server CPU per answer counts all of the leg's server processes. */
export type LegFigures = TargetFigures;

export interface AvailabilityPgResult {
  domain: string;
  legs: { sqlite: LegFigures; postgres: LegFigures; postgres_two: LegFigures };
  pgbench: { version: string; runs: PgbenchRun[]; tps: number; latencyMs: number } | 'skipped';
  /** Per-round ratios and their median. */
  ratios: Record<string, { rounds: number[]; median: number }>;
  /** 2 cores over the two processes' CPU per answer: what the cores would allow the servers alone. */
  twoProcessCeiling: number;
  cores: number;
}

const PATH = '/api/partner/v1/availability';
type LegKey = keyof AvailabilityPgResult['legs'];

interface Server {
  child: Child;
  credential: Credential;
}

/** A server of a leg, with its own data directory; `databaseUrl` absent: SQLite. */
async function startServer(databaseUrl: string | undefined, masterKey: string): Promise<Child> {
  return spawnServer({
    dataDir: tempDir('bench-avail-pg'),
    masterKey,
    validateResponses: false,
    ...(databaseUrl ? { databaseUrl } : {}),
  });
}

/** Load split evenly across `servers` at once; figures combined (p50/p99: the worse server's). */
async function splitLoad(
  servers: Server[],
  target: string,
  connections: number,
  duration: number,
): Promise<LoadResult> {
  const each = Math.max(1, Math.floor(connections / servers.length));
  const results = await Promise.all(
    servers.map((s) =>
      runLoad({
        url: s.child.url,
        connections: each,
        duration,
        path: target,
        pid: s.child.child.pid,
        build: () => ({ headers: signFor(s.credential, 'GET', target) }),
      }),
    ),
  );
  const requests = results.reduce((n, r) => n + r.requests, 0);
  const statuses: Record<string, number> = {};
  for (const r of results)
    for (const [code, n] of Object.entries(r.statuses)) statuses[code] = (statuses[code] ?? 0) + n;
  const weighted = (f: (r: LoadResult) => number) =>
    requests > 0 ? results.reduce((n, r) => n + f(r) * r.requests, 0) / requests : NaN;
  return {
    requests,
    rps: results.reduce((n, r) => n + r.rps, 0),
    p50: Math.max(...results.map((r) => r.p50)),
    p99: Math.max(...results.map((r) => r.p99)),
    max: Math.max(...results.map((r) => r.max)),
    errors: results.reduce((n, r) => n + r.errors, 0),
    timeouts: results.reduce((n, r) => n + r.timeouts, 0),
    statuses,
    non2xx: results.reduce((n, r) => n + r.non2xx, 0),
    cpuMicrosPerRequest: weighted((r) => r.cpuMicrosPerRequest),
    systemMicrosPerRequest: weighted((r) => r.systemMicrosPerRequest),
  };
}

export async function benchAvailabilityPg(o: AvailabilityPgOptions): Promise<AvailabilityPgResult | 'skipped'> {
  const pgUrl = postgresUrlOrSkip('GET /availability on PostgreSQL (one and two server processes)');
  if (!pgUrl) return 'skipped';
  const children: Child[] = [];
  let fresh: FreshDatabase | undefined;
  try {
    fresh = await freshDatabase(pgUrl, 'bench_avail');
    const masterKey = newMasterKey();
    o.log('availability on PostgreSQL: starting a server on SQLite and two on one PostgreSQL database');
    const sqliteChild = await startServer(undefined, masterKey);
    children.push(sqliteChild);
    // One after the other: the first migrates and seeds the database, the second finds it ready.
    const pgA = await startServer(fresh.url, masterKey);
    children.push(pgA);
    const pgB = await startServer(fresh.url, masterKey);
    children.push(pgB);
    const [sqliteCredential, pgCredential] = await Promise.all([mint(sqliteChild.url), mint(pgA.url)]);
    const store = await openServerStore({ dataDir: tempDir('bench-avail-pg-read'), databaseUrl: fresh.url, masterKey });
    const domain = (await listedInventory(store, 1))[0]?.domain;
    await store.close();
    if (!domain) throw new Error('no listed domain found');
    const target = `${PATH}?domain=${domain}`;
    for (const [url, credential] of [
      [sqliteChild.url, sqliteCredential],
      [pgA.url, pgCredential],
      [pgB.url, pgCredential],
    ] as const) {
      const answer = await signedRequest(url, credential, 'GET', target);
      if (answer.status !== 200) throw new Error(`GET ${target}: ${answer.status} ${answer.text}`);
    }
    const version = pgbenchVersion();
    if (!version) console.warn('\n*** pgbench is not on PATH: GET /availability / pgbench -S is SKIPPED ***\n');
    else await initPgbench(fresh.url);
    const legs: Record<LegKey, { label: string; servers: Server[] }> = {
      sqlite: { label: 'SQLite, one process', servers: [{ child: sqliteChild, credential: sqliteCredential }] },
      postgres: { label: 'PostgreSQL, one process', servers: [{ child: pgA, credential: pgCredential }] },
      postgres_two: {
        label: 'PostgreSQL, two processes (load split)',
        servers: [
          { child: pgA, credential: pgCredential },
          { child: pgB, credential: pgCredential },
        ],
      },
    };
    const steps: Array<LegKey | 'pgbench'> = [
      'sqlite',
      'postgres',
      'postgres_two',
      ...(version ? ['pgbench' as const] : []),
    ];
    o.log('availability on PostgreSQL: warming up');
    for (const key of Object.keys(legs) as LegKey[])
      await splitLoad(legs[key].servers, target, o.connections, Math.min(3, o.duration));
    const runs = new Map<LegKey, LoadResult[]>(steps.filter((s) => s !== 'pgbench').map((k) => [k, []]));
    const pgbenchRuns: PgbenchRun[] = [];
    const dbUrl = fresh.url;
    for (let round = 0; round < o.rounds; round++) {
      const order = steps.map((_, i) => steps[(i + round) % steps.length] as LegKey | 'pgbench');
      for (const step of order) {
        if (step === 'pgbench') {
          const r = await runPgbench(dbUrl, o.connections, o.duration, 'select-only');
          pgbenchRuns.push(r);
          o.log(
            `  round ${round + 1}/${o.rounds}  pgbench -S     ${Math.round(r.tps).toString().padStart(7)} tps  latency ${r.latencyMs.toFixed(2)} ms`,
          );
          continue;
        }
        const r = await splitLoad(legs[step].servers, target, o.connections, o.duration);
        runs.get(step)?.push(r);
        o.log(
          `  round ${round + 1}/${o.rounds}  ${step.padEnd(13)} ${Math.round(r.rps).toString().padStart(7)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  ${Math.round(r.cpuMicrosPerRequest)} µs CPU/req  ${JSON.stringify(r.statuses)}`,
        );
      }
    }
    const figures = (key: LegKey): LegFigures => figuresOf(legs[key].label, runs.get(key) ?? []);
    const perRound = (a: LegKey, b: (round: number) => number) => {
      const rounds = (runs.get(a) ?? []).map((r, i) => r.rps / b(i));
      return { rounds, median: median(rounds) };
    };
    const rpsOf = (key: LegKey) => (i: number) => runs.get(key)?.[i]?.rps ?? NaN;
    const two = figures('postgres_two');
    const cores = cpus().length;
    return {
      domain,
      legs: { sqlite: figures('sqlite'), postgres: figures('postgres'), postgres_two: two },
      pgbench: version
        ? {
            version,
            runs: pgbenchRuns,
            tps: median(pgbenchRuns.map((r) => r.tps)),
            latencyMs: median(pgbenchRuns.map((r) => r.latencyMs)),
          }
        : 'skipped',
      ratios: {
        postgres_vs_sqlite: perRound('postgres', rpsOf('sqlite')),
        postgres_two_vs_one: perRound('postgres_two', rpsOf('postgres')),
        ...(version
          ? {
              postgres_vs_pgbench_s: perRound('postgres', (i) => pgbenchRuns[i]?.tps ?? NaN),
              postgres_two_vs_pgbench_s: perRound('postgres_two', (i) => pgbenchRuns[i]?.tps ?? NaN),
            }
          : {}),
      },
      twoProcessCeiling: (cores * 1_000_000) / two.cpuMicrosPerRequest,
      cores,
    };
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    await fresh?.drop();
  }
}
