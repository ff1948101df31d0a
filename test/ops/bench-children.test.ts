// A bench or drill stopped from outside takes its child processes with it (scripts/bench/lib/
// children.ts, and the servers' own watch of their parent): a SIGTERM from `kill`, `timeout` or a
// CI cancel reaches the bench alone, and a SIGKILL cannot be caught at all.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'bench-children-'));
const script = join(dir, 'bench.mts');
// A bench's shape: one server spawned through the bench's library, its pid said, then waiting.
writeFileSync(
  script,
  `import { spawnBare, tempDir } from ${JSON.stringify(join(ROOT, 'scripts/bench/lib/processes.ts'))};
const data = tempDir('bench-children-data');
const bare = await spawnBare('{}');
process.stdout.write(\`DATA \${data}\\n\`);
process.stdout.write(\`CHILD \${bare.child.pid}\\n\`);
if (process.argv[2] === 'end') await bare.stop();
else setInterval(() => {}, 1 << 30);
`,
);

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Starts the bench; resolves with it, its child's pid and how long it took to be up (ms). */
function startBench(...args: string[]): Promise<{ bench: ChildProcess; child: number; data: string; startMs: number }> {
  const started = performance.now();
  const bench = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    bench.stderr?.on('data', (c: Buffer) => (err += c.toString()));
    bench.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /DATA (\S+)\nCHILD (\d+)/.exec(out);
      if (m) resolve({ bench, data: m[1] as string, child: Number(m[2]), startMs: performance.now() - started });
    });
    bench.once('exit', (code) => reject(new Error(`the bench exited (${code}) before its child was up:\n${err}`)));
  });
}

/** Polls until `pid` is gone; the bound is derived from how long the bench took to start. */
async function gone(pid: number, startMs: number): Promise<number> {
  const since = performance.now();
  const bound = Math.max(5_000, 3 * startMs);
  while (alive(pid)) {
    if (performance.now() - since > bound) return Number.POSITIVE_INFINITY;
    await new Promise((r) => setTimeout(r, 50));
  }
  return performance.now() - since;
}

const exited = (p: ChildProcess) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    p.exitCode !== null || p.signalCode !== null
      ? resolve({ code: p.exitCode, signal: p.signalCode })
      : p.once('exit', (code, signal) => resolve({ code, signal })),
  );

describe("a bench's child processes", () => {
  const leftovers: number[] = [];
  // A bench killed with SIGKILL cannot remove its data folder: the test does.
  const folders: string[] = [];
  afterAll(() => {
    for (const pid of leftovers) if (alive(pid)) process.kill(pid, 'SIGKILL');
    for (const folder of [dir, ...folders]) rmSync(folder, { recursive: true, force: true });
  });

  it('stop when the bench gets SIGTERM, and the bench then ends as the signal would (143)', async () => {
    const { bench, child, data } = await startBench();
    leftovers.push(child);
    expect(alive(child)).toBe(true);
    expect(existsSync(data)).toBe(true);
    bench.kill('SIGTERM');
    expect(await exited(bench)).toEqual({ code: 143, signal: null });
    // Stopped by the bench before it ended, not later by the server's own watch of its parent.
    expect(alive(child), 'the server outlived the bench').toBe(false);
    expect(existsSync(data), 'the bench left its data folder behind').toBe(false);
  }, 120_000);

  it('leave no data folder behind when the bench ends on its own', async () => {
    const { bench, child, data } = await startBench('end');
    leftovers.push(child);
    expect(await exited(bench)).toEqual({ code: 0, signal: null });
    expect(existsSync(data), 'the bench left its data folder behind').toBe(false);
  }, 120_000);

  it('stop on their own when the bench is killed with SIGKILL', async () => {
    const { bench, child, data, startMs } = await startBench();
    leftovers.push(child);
    folders.push(data);
    bench.kill('SIGKILL');
    await exited(bench);
    expect(await gone(child, startMs), 'the server outlived the bench').toBeLessThan(Number.POSITIVE_INFINITY);
  }, 120_000);
});
