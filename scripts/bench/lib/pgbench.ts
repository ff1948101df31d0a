// PostgreSQL's own benchmark beside ours: `pgbench -N` (its simple-update transactions: an UPDATE,
// a SELECT and an INSERT per transaction, each committed with the server's synchronous_commit)
// against the same server, in the same database, at the same concurrency, so POST /orders can be
// given as a share of what the database does on this machine at this moment.
import { spawn, spawnSync } from 'node:child_process';
import { cpus } from 'node:os';
import { track } from './children.ts';

export interface PgbenchRun {
  /** Transactions per second, without the initial connection time. */
  tps: number;
  /** Average latency, ms. */
  latencyMs: number;
}

/** pgbench's version line, or undefined when it is not on PATH. */
export function pgbenchVersion(): string | undefined {
  const probe = spawnSync('pgbench', ['--version'], { encoding: 'utf8' });
  return probe.status === 0 ? probe.stdout.trim() : undefined;
}

function run(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = track(spawn('pgbench', args, { stdio: ['ignore', 'pipe', 'pipe'] }));
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`pgbench ${args.join(' ')} exited ${code}:\n${out.slice(-2000)}`)),
    );
  });
}

/** Creates pgbench's tables in the database of `url` (scale 10: a million accounts). */
export async function initPgbench(url: string, scale = 10): Promise<void> {
  await run(['-i', '-q', '-s', String(scale), url]);
}

/**
 * One pgbench run of `seconds` with `clients` connections: `-N` (simple-update, the default) or
 * `-S` (select-only: one primary-key read per transaction, the read-only yardstick).
 */
export async function runPgbench(
  url: string,
  clients: number,
  seconds: number,
  mode: 'simple-update' | 'select-only' = 'simple-update',
): Promise<PgbenchRun> {
  const threads = Math.max(1, Math.min(clients, cpus().length));
  const out = await run([
    mode === 'select-only' ? '-S' : '-N',
    '-n',
    '-c',
    String(clients),
    '-j',
    String(threads),
    '-T',
    String(seconds),
    url,
  ]);
  const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(out);
  const latency = /latency average = ([\d.]+) ms/.exec(out);
  if (!tps || !latency) throw new Error(`pgbench printed no tps:\n${out.slice(-2000)}`);
  return { tps: Number(tps[1]), latencyMs: Number(latency[1]) };
}
