// The cost of operability (issue 25): the signed partner GET /availability on two production-
// profile servers, one writing a JSON log line per request (pino, buffered as in production, to a file) and
// counting every metric, the other logging and counting nothing (BENCH_OPS, serve.ts).
//
// How the two are compared, and why: each round loads BOTH servers at the same time, at the same
// fixed request rate (a share of the capacity the warm-up measured), and compares their server
// CPU per answer within the round.
// - At the same moment, whatever else the shared machine does falls on both servers alike.
// - At a fixed rate, both do the same work per event-loop turn. At full speed a server that
//   happens to get less of the machine answers fewer requests per turn and pays the turn's fixed
//   costs over fewer answers, so its CPU per answer rises for reasons that are not its own.
//   (A/A runs, BENCH_OPS_ON=off, one server after the other at full speed: per-round ratios -0.36
//   to +0.56; both at once at a fixed rate: -0.04 to +0.02.)
// - Each server is pinned to a CPU of its own (taskset) and the two swap CPUs every round; a pair
//   of rounds, one each way, gives the cost as the geometric mean of its two ratios, which cancels
//   a CPU's own factor. (Pinning both to one CPU was tried and dropped: no tighter A/A, and at this
//   rate it nearly fills that CPU.)
// - A whole process can be slow: in one run in five or so, all six rounds of one pair of servers
//   read +0.16 to +0.31 on both CPUs while the runs before and after read +0.01 to +0.10, and the
//   same happened to an "off" server (a logs-only run read -0.09 to -0.01). Their GC counts and
//   times matched (548 against 565 scavenges, 1.55 s each), and profiles of both taken at once
//   showed no function of their own standing out. So the leg starts a fresh pair of processes per
//   round asked for (3 by default), measures each over two pairs of rounds, and the target is on
//   the median over the pairs of processes.
// BENCH_OPS_RATE=<req/s per server> sets the rate.
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
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
  /** Run both servers under `node --cpu-prof`, writing their profiles here (folders `ops-on`, `ops-off`: one file per thread). */
  profileDir?: string | undefined;
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
  /** Requests per second each server was offered in every round (both at once). */
  rate: number;
  /** What the slower server answered per second alone, at full speed, once warm. */
  capacity: number;
  /**
   * Per pair of rounds (the servers swap CPUs between the two): √(ratio × ratio) - 1 of cpu(on) /
   * cpu(off) per answer; per pair of server processes, the median of its pairs of rounds; and the
   * median of those, the figure the target is on.
   */
  cpuCost: { processes: number[]; pairs: number[]; median: number };
  /** Per pair of rounds: the mean of cpu(on) - cpu(off) per answer, µs, and its median (the same cost, not relative to the rate's). */
  cpuAdded: { pairs: number[]; median: number };
  /** Whether the servers were pinned to CPUs of their own, swapped every round (taskset; else not pinned). */
  pinned: boolean;
  unexpected: number;
}

export const OPS_TARGET = 0.1;

/**
 * The rate each server is offered, as a share of one server's capacity: two servers and the
 * load generator share the machine, so each must stay well below what it answers alone.
 */
const RATE_SHARE = 0.4;

const PATH = '/api/partner/v1/availability';

/** Pins every thread of `pid` to one CPU; false where that cannot be done (one CPU, no taskset). */
function pin(pid: number | undefined, cpu: number): boolean {
  if (pid === undefined || availableParallelism() < 2) return false;
  try {
    execFileSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

interface Pair {
  on: Child;
  off: Child;
  credentials: Record<'on' | 'off', Credential>;
  target: string;
}

/** A fresh pair of servers (logs and metrics on / off), each answering the signed GET. */
async function startPair(o: OpsOptions, index: number): Promise<Pair> {
  const onDir = tempDir('bench-ops-on');
  const onKey = newMasterKey();
  const profile = (name: string) =>
    o.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${join(o.profileDir, `ops-${name}`)}`] : [];
  const started = await Promise.allSettled([
    // BENCH_OPS_ON=logs|metrics|observer|off measures a part alone, or nothing (A/A).
    spawnServer(
      {
        dataDir: onDir,
        masterKey: onKey,
        validateResponses: false,
        extra: { BENCH_OPS: process.env.BENCH_OPS_ON || 'on' },
      },
      profile('on'),
    ),
    spawnServer({ validateResponses: false, extra: { BENCH_OPS: 'off' } }, profile('off')),
  ]);
  const [on, off] = started.map((s) => (s.status === 'fulfilled' ? s.value : undefined));
  if (!on || !off) {
    await Promise.all([on?.stop(), off?.stop()]);
    const failed = started.find((s) => s.status === 'rejected');
    throw failed?.reason ?? new Error(`ops: server pair ${index + 1} did not start`);
  }
  try {
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
    return { on, off, credentials: { on: onCredential, off: offCredential }, target };
  } catch (err) {
    await Promise.all([on.stop(), off.stop()]);
    throw err;
  }
}

export async function benchOps(o: OpsOptions): Promise<OpsResult> {
  // One pair of server processes per round asked for (at least 2), each measured over 2 pairs of
  // rounds of a quarter of the duration (at least 2.5 s).
  const processes = Math.max(2, o.rounds);
  const roundsPerPair = 4;
  const duration = Math.max(2.5, o.duration / 4);
  const runs: Record<'on' | 'off', LoadResult[]> = { on: [], off: [] };
  const perPair: number[] = [];
  const cpu: number[] = [];
  const addedPairs: number[] = [];
  let pinned = true;
  let capacity = 0;
  let rate = 0;
  for (let p = 0; p < processes; p++) {
    o.log(
      `ops: server pair ${p + 1}/${processes}: starting two production-profile servers (logs and metrics on / off)`,
    );
    const pair = await startPair(o, p);
    try {
      /** One load; rate 0: as fast as the server answers. */
      const run = (key: 'on' | 'off', seconds: number, perSecond: number) =>
        runLoad({
          url: pair[key].url,
          connections: o.connections,
          duration: seconds,
          path: pair.target,
          pid: pair[key].child.pid,
          build: () => ({ headers: signFor(pair.credentials[key], 'GET', pair.target) }),
          ...(perSecond > 0 ? { overallRate: perSecond } : {}),
        });
      // Each server alone at full speed first: a fresh process compiles its code in its first seconds.
      const warmUp = Math.min(3, o.duration);
      await run('on', warmUp, 0);
      await run('off', warmUp, 0);
      if (p === 0) {
        // Measured once both are warm, on both, so both have had the same warm-up: with one more
        // for the off server, A/A runs' first rounds read +0.1 to +0.35.
        capacity = Math.min((await run('on', warmUp, 0)).rps, (await run('off', warmUp, 0)).rps);
        rate = Number(process.env.BENCH_OPS_RATE) || Math.max(50, Math.round(capacity * RATE_SHARE));
        o.log(
          `ops: capacity ${Math.round(capacity)} req/s alone; each round offers both servers ${rate} req/s at once`,
        );
      }
      const ratios: number[] = [];
      const added: number[] = [];
      for (let round = 0; round < roundsPerPair; round++) {
        pinned = pin(pair.on.child.pid, round % 2) && pin(pair.off.child.pid, (round + 1) % 2) && pinned;
        const [onRun, offRun] = await Promise.all([run('on', duration, rate), run('off', duration, rate)]);
        runs.on.push(onRun);
        runs.off.push(offRun);
        ratios.push(onRun.cpuMicrosPerRequest / offRun.cpuMicrosPerRequest);
        added.push(onRun.cpuMicrosPerRequest - offRun.cpuMicrosPerRequest);
        const where = (c: number) => (pinned ? `  (CPU ${c})` : '');
        const line = (key: 'on' | 'off', r: LoadResult, c: number) =>
          `  pair ${p + 1} round ${round + 1}/${roundsPerPair}  ${key.padEnd(4)} ${Math.round(r.rps).toString().padStart(7)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  ${Math.round(r.cpuMicrosPerRequest)} µs CPU/req (${Math.round(r.systemMicrosPerRequest)} system)  ${JSON.stringify(r.statuses)}${where(c)}`;
        o.log(line('on', onRun, round % 2));
        o.log(line('off', offRun, (round + 1) % 2));
      }
      // A pair of rounds, one each way round the CPUs: the geometric mean of its two ratios.
      const costs = Array.from(
        { length: roundsPerPair / 2 },
        (_, k) => Math.sqrt((ratios[2 * k] ?? NaN) * (ratios[2 * k + 1] ?? NaN)) - 1,
      );
      cpu.push(...costs);
      addedPairs.push(
        ...Array.from({ length: roundsPerPair / 2 }, (_, k) => ((added[2 * k] ?? NaN) + (added[2 * k + 1] ?? NaN)) / 2),
      );
      perPair.push(median(costs));
      o.log(`  pair ${p + 1}: on / off - 1 = ${costs.map((c) => c.toFixed(2)).join(', ')}`);
    } finally {
      await Promise.all([pair.on.stop(), pair.off.stop()]);
    }
  }
  const side = (rs: LoadResult[]): Side => ({
    rps: median(rs.map((r) => r.rps)),
    p50: median(rs.map((r) => r.p50)),
    p99: median(rs.map((r) => r.p99)),
    cpuMicrosPerRequest: median(rs.map((r) => r.cpuMicrosPerRequest)),
    runs: rs,
  });
  const unexpected = [...runs.on, ...runs.off].reduce(
    (n, r) =>
      n + r.errors + r.timeouts + Object.entries(r.statuses).reduce((m, [code, c]) => m + (code === '200' ? 0 : c), 0),
    0,
  );
  return {
    on: side(runs.on),
    off: side(runs.off),
    rate,
    capacity,
    cpuCost: { processes: perPair, pairs: cpu, median: median(perPair) },
    cpuAdded: { pairs: addedPairs, median: median(addedPairs) },
    pinned,
    unexpected,
  };
}
