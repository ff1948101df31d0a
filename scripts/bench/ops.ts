// The cost of operability (issue 25): the signed partner GET /availability on two production-
// profile servers, one writing a JSON log line per request (pino, buffered as in production, to a file) and
// counting every metric, the other logging and counting nothing (BENCH_OPS, serve.ts). Rounds
// alternate the order; each round's on/off ratio is taken within the round, and the medians of
// throughput, latency and server CPU per answer are compared. Target: under 10 % more server CPU
// per answer (throughput is printed too, but on a shared machine it swings by ±30 % between two
// identical servers: BENCH_OPS_ON=off runs that A/A comparison).
import { runLoad, type LoadResult } from './lib/load.ts';
import { mint, signFor, signedRequest, type Credential } from './lib/partner.ts';
import { newMasterKey, spawnServer, tempDir, type Child } from './lib/processes.ts';
import { listedInventory, openServerStore } from './lib/store.ts';
import { median } from './lib/table.ts';

export interface OpsOptions {
  duration: number;
  rounds: number;
  connections: number;
  log: (line: string) => void;
}

interface Side {
  rps: number;
  p50: number;
  p99: number;
  cpuMicrosPerRequest: number;
  runs: LoadResult[];
}

export interface OpsResult {
  on: Side;
  off: Side;
  /** Per round: 1 - rps(on) / rps(off), and its median (the throughput cost). */
  throughputCost: { rounds: number[]; median: number };
  /** Per round: cpu(on) / cpu(off) - 1 per answer, and its median. */
  cpuCost: { rounds: number[]; median: number };
  unexpected: number;
}

export const OPS_TARGET = 0.1;

const PATH = '/api/partner/v1/availability';

export async function benchOps(o: OpsOptions): Promise<OpsResult> {
  const children: Child[] = [];
  try {
    o.log('ops: starting two production-profile servers (logs and metrics on / off)');
    const onDir = tempDir('bench-ops-on');
    const onKey = newMasterKey();
    const [on, off] = await Promise.all([
      // BENCH_OPS_ON=logs|metrics measures one of the two alone.
      spawnServer({
        dataDir: onDir,
        masterKey: onKey,
        validateResponses: false,
        extra: { BENCH_OPS: process.env.BENCH_OPS_ON || 'on' },
      }),
      spawnServer({ validateResponses: false, extra: { BENCH_OPS: 'off' } }),
    ]);
    children.push(on, off);
    const [onCredential, offCredential] = await Promise.all([mint(on.url), mint(off.url)]);
    // The same listed domain on both (same generator seed): the handler reads a listing.
    const store = await openServerStore({ dataDir: onDir, masterKey: onKey });
    const domain = (await listedInventory(store, 1))[0]?.domain;
    await store.close();
    if (!domain) throw new Error('no listed domain found');
    const target = `${PATH}?domain=${domain}`;
    for (const [child, credential] of [
      [on, onCredential],
      [off, offCredential],
    ] as Array<[Child, Credential]>) {
      const answer = await signedRequest(child.url, credential, 'GET', target);
      if (answer.status !== 200) throw new Error(`GET ${target}: ${answer.status} ${answer.text}`);
    }
    const sides = { on: { child: on, credential: onCredential }, off: { child: off, credential: offCredential } };
    const run = (key: 'on' | 'off', duration: number) =>
      runLoad({
        url: sides[key].child.url,
        connections: o.connections,
        duration,
        path: target,
        pid: sides[key].child.child.pid,
        build: () => ({ headers: signFor(sides[key].credential, 'GET', target) }),
      });
    o.log('ops: warming up');
    await run('on', Math.min(3, o.duration));
    await run('off', Math.min(3, o.duration));
    const runs: Record<'on' | 'off', LoadResult[]> = { on: [], off: [] };
    for (let round = 0; round < o.rounds; round++) {
      const order: Array<'on' | 'off'> = round % 2 === 0 ? ['on', 'off'] : ['off', 'on'];
      for (const key of order) {
        const r = await run(key, o.duration);
        runs[key].push(r);
        o.log(
          `  round ${round + 1}/${o.rounds}  ${key.padEnd(4)} ${Math.round(r.rps).toString().padStart(7)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  ${Math.round(r.cpuMicrosPerRequest)} µs CPU/req  ${JSON.stringify(r.statuses)}`,
        );
      }
    }
    const side = (rs: LoadResult[]): Side => ({
      rps: median(rs.map((r) => r.rps)),
      p50: median(rs.map((r) => r.p50)),
      p99: median(rs.map((r) => r.p99)),
      cpuMicrosPerRequest: median(rs.map((r) => r.cpuMicrosPerRequest)),
      runs: rs,
    });
    const throughput = runs.on.map((r, i) => 1 - r.rps / (runs.off[i]?.rps ?? NaN));
    const cpu = runs.on.map((r, i) => r.cpuMicrosPerRequest / (runs.off[i]?.cpuMicrosPerRequest ?? NaN) - 1);
    const unexpected = [...runs.on, ...runs.off].reduce(
      (n, r) =>
        n +
        r.errors +
        r.timeouts +
        Object.entries(r.statuses).reduce((m, [code, c]) => m + (code === '200' ? 0 : c), 0),
      0,
    );
    return {
      on: side(runs.on),
      off: side(runs.off),
      throughputCost: { rounds: throughput, median: median(throughput) },
      cpuCost: { rounds: cpu, median: median(cpu) },
      unexpected,
    };
  } finally {
    await Promise.all(children.map((c) => c.stop()));
  }
}
