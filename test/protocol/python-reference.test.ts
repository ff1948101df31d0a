// The second, independent implementation (Python standard library) must agree with the vectors.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, VERIFY_SCRIPT_PATH } from './vectors.ts';

const probe = spawnSync('python3', ['--version'], { encoding: 'utf8' });
const pythonMissing = probe.error !== undefined;
if (pythonMissing) {
  console.warn(
    `SKIPPING the independent vector check: python3 is not available (${probe.error?.message}). ` +
      'spec/vectors/signing.json has NOT been cross-checked in this run.',
  );
}

describe('spec/vectors/verify_vectors.py', () => {
  it.skipIf(pythonMissing)('recomputes every vector and exits 0', () => {
    const run = spawnSync('python3', [VERIFY_SCRIPT_PATH], { cwd: REPO_ROOT, encoding: 'utf8' });
    expect(run.error).toBeUndefined();
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^signing vectors OK/);
  });
});
