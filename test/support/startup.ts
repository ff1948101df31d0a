// How slow this machine is right now, for the tests that spawn processes: one start-up of
// `node --import tsx` on an empty module, measured once per test file, and timeouts scaled from
// it. A constant timeout that suits a quiet machine fails on a busy one (a spawned CLI took more
// than 30 s under load); one scaled from a start-up measured on the same machine, a moment
// before, grows with the load. Use with top-level await, since vitest takes a test's timeout
// when the test is declared:
//
//   const timing = await measureStartup();
//   it('…', async () => { … }, timing.timeout(20));
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** vitest's per-test timeout on a quiet machine (vitest.config.ts): a scaled timeout is never shorter. */
export const DEFAULT_TIMEOUT_MS = 30_000;

export interface Startup {
  /** Wall time of one `node --import tsx` start and exit on an empty module, in ms. */
  ms: number;
  /** `multiple` start-ups, and never less than `floorMs` (default: vitest's 30 s). */
  timeout(multiple: number, floorMs?: number): number;
}

let measured: Promise<Startup> | undefined;

/** Spawns `node --import tsx` on an empty module once (per test file) and times it to its exit. */
export function measureStartup(): Promise<Startup> {
  measured ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'startup-'));
    const file = join(dir, 'empty.ts');
    writeFileSync(file, 'export {};\n');
    try {
      const started = performance.now();
      await new Promise<void>((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', file], { cwd: ROOT, stdio: 'ignore' });
        child.once('error', reject);
        child.once('close', (code) =>
          code === 0 ? resolve() : reject(new Error(`node --import tsx exited ${code} on an empty module`)),
        );
      });
      const ms = Math.ceil(performance.now() - started);
      return {
        ms,
        timeout: (multiple: number, floorMs = DEFAULT_TIMEOUT_MS) => Math.max(floorMs, Math.ceil(multiple * ms)),
      };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  })();
  return measured;
}
