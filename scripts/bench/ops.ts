// The cost of operability (issue 25): the signed partner GET /availability on two production-
// profile servers, one writing a JSON log line per request (pino, buffered as in production, to a file) and
// counting every metric, the other logging and counting nothing (BENCH_OPS, serve.ts).
//
// How the two are compared, and why: each round loads BOTH servers at the same time, at the same
// fixed request rate (a share of the capacity the warm-up measured), and compares their server
// CPU per answer within the round; the target is on the median of those per-round ratios.
// - At the same moment, whatever else the shared machine does falls on both servers alike.
// - At a fixed rate, both do the same work per event-loop turn. At full speed a server that
//   happens to get less of the machine answers fewer requests per turn and pays the turn's fixed
//   costs over fewer answers, so its CPU per answer rises for reasons that are not its own.
// Measured with BENCH_OPS_ON=off (an A/A run: two identical servers) at load average 3 to 5:
// one server after the other at full speed, per-round ratios -0.36 to +0.56 and medians of 0.13
// and -0.05 in two runs; both at once at full speed, -0.13 to +0.11; both at once at a fixed
// rate, -0.04 to +0.02 (median -0.01), though a quiet run later still had one round of +0.19.
// BENCH_OPS_RATE=<req/s per server> sets the rate. Pinning both servers to one CPU (taskset) was
// tried and dropped: it made no A/A run tighter, and at this rate it nearly fills that CPU.
// - Within one run, the rounds agreed with each other far better than runs did (one run's six
//   rounds all read +0.10 to +0.25 where the next run's read +0.01 to +0.09): where each server
//   happened to run, and what shared its CPU, biased a whole run. So each server is pinned to a
//   CPU of its own (taskset), and the two swap CPUs every round; a pair of rounds, one each way,
//   gives the cost as the geometric mean of its two ratios, which cancels a CPU's own factor.
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
  /** Per pair of rounds (the servers swap CPUs between the two): √(ratio × ratio) - 1 of cpu(on) / cpu(off) per answer, and its median. */
  cpuCost: { pairs: number[]; median: number };
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

export async function benchOps(o: OpsOptions): Promise<OpsResult> {
  const children: Child[] = [];
  try {
    o.log('ops: starting two production-profile servers (logs and metrics on / off)');
    const onDir = tempDir('bench-ops-on');
    const onKey = newMasterKey();
    const profile = (name: string) =>
      o.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${join(o.profileDir, `ops-${name}`)}`] : [];
    const [on, off] = await Promise.all([
      // BENCH_OPS_ON=logs|metrics measures one of the two alone.
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
    /** One load; rate 0: as fast as the server answers. */
    const run = (key: 'on' | 'off', duration: number, rate: number) =>
      runLoad({
        url: sides[key].child.url,
        connections: o.connections,
        duration,
        path: target,
        pid: sides[key].child.child.pid,
        build: () => ({ headers: signFor(sides[key].credential, 'GET', target) }),
        ...(rate > 0 ? { overallRate: rate } : {}),
      });
    const roundLine = (round: number, key: 'on' | 'off', r: LoadResult) =>
      `  round ${round + 1}/${rounds}  ${key.padEnd(4)} ${Math.round(r.rps).toString().padStart(7)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  ${Math.round(r.cpuMicrosPerRequest)} µs CPU/req (${Math.round(r.systemMicrosPerRequest)} system)  ${JSON.stringify(r.statuses)}`;
    // Twice the rounds at half the length (at least 3 s): the same time under load, and as many
    // pairs (one each way round the CPUs) as the rounds asked for.
    const rounds = o.rounds * 2;
    const duration = Math.max(3, o.duration / 2);
    o.log('ops: warming up (each server alone, at full speed)');
    const warmUp = Math.min(3, o.duration);
    await run('on', warmUp, 0);
    await run('off', warmUp, 0);
    // Measured once both are warm (the first seconds of a fresh server compile its code), on both,
    // so both have had the same warm-up: with one more for the off server, A/A runs' first rounds
    // read +0.1 to +0.35.
    const capacity = Math.min((await run('on', warmUp, 0)).rps, (await run('off', warmUp, 0)).rps);
    const rate = Number(process.env.BENCH_OPS_RATE) || Math.max(50, Math.round(capacity * RATE_SHARE));
    o.log(`ops: capacity ${Math.round(capacity)} req/s alone; each round offers both servers ${rate} req/s at once`);
    const runs: Record<'on' | 'off', LoadResult[]> = { on: [], off: [] };
    let pinned = true;
    for (let round = 0; round < rounds; round++) {
      pinned = pin(on.child.pid, round % 2) && pin(off.child.pid, (round + 1) % 2) && pinned;
      const [onRun, offRun] = await Promise.all([run('on', duration, rate), run('off', duration, rate)]);
      runs.on.push(onRun);
      runs.off.push(offRun);
      const where = (cpu: number) => (pinned ? `  (CPU ${cpu})` : '');
      o.log(roundLine(round, 'on', onRun) + where(round % 2));
      o.log(roundLine(round, 'off', offRun) + where((round + 1) % 2));
    }
    const side = (rs: LoadResult[]): Side => ({
      rps: median(rs.map((r) => r.rps)),
      p50: median(rs.map((r) => r.p50)),
      p99: median(rs.map((r) => r.p99)),
      cpuMicrosPerRequest: median(rs.map((r) => r.cpuMicrosPerRequest)),
      runs: rs,
    });
    const ratio = runs.on.map((r, i) => r.cpuMicrosPerRequest / (runs.off[i]?.cpuMicrosPerRequest ?? NaN));
    const added = runs.on.map((r, i) => r.cpuMicrosPerRequest - (runs.off[i]?.cpuMicrosPerRequest ?? NaN));
    const pairs = Array.from({ length: rounds / 2 }, (_, k) => 2 * k);
    const cpu = pairs.map((i) => Math.sqrt((ratio[i] ?? NaN) * (ratio[i + 1] ?? NaN)) - 1);
    const addedPairs = pairs.map((i) => ((added[i] ?? NaN) + (added[i + 1] ?? NaN)) / 2);
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
      rate,
      capacity,
      cpuCost: { pairs: cpu, median: median(cpu) },
      cpuAdded: { pairs: addedPairs, median: median(addedPairs) },
      pinned,
      unexpected,
    };
  } finally {
    await Promise.all(children.map((c) => c.stop()));
  }
}
