import { spawnSync } from 'node:child_process';
import { defineConfig } from 'vitest/config';

/**
 * The default timeouts grow with the load of the machine the run starts on: one
 * `node --import tsx` start-up is timed now, and a test may take 15 of them (a hook 30), never
 * less than 30 s (60 s). On a quiet machine that is vitest's usual 30 s; on a 2-core machine
 * shared by several runs, where a start-up took 3 s, in-process tests that take 10 s quiet hit
 * a constant 30 s. Tests that spawn processes scale their own (test/support/startup.ts).
 */
function measuredStartupMs(): number {
  const started = performance.now();
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', ''], { stdio: 'ignore' });
  return run.status === 0 ? performance.now() - started : 0;
}
const startupMs = measuredStartupMs();

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: Math.max(30_000, Math.ceil(15 * startupMs)),
    hookTimeout: Math.max(60_000, Math.ceil(30 * startupMs)),
    // The default summary, plus each failure printed when it happens (test/support/failures-now.ts).
    reporters: ['default', './test/support/failures-now.ts'],
  },
});
