// Which kit `domain-sales-conformance` (conformance/bin.mjs) runs: in this repository the
// TypeScript source beside it, even when `npm pack` has left a dist/ there (stale after the next
// edit, and rewritten by the packages test while others run the bin); installed, where the
// package ships dist/ alone, the compiled CLI.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/contract.ts';

const run = promisify(execFile);

/** A package folder holding bin.mjs, a dist/ CLI and, as in the repository, optionally cli.ts. */
function kitFolder(withSource: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), 'kit-bin-'));
  copyFileSync(join(ROOT, 'conformance', 'bin.mjs'), join(dir, 'bin.mjs'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  mkdirSync(join(dir, 'dist', 'conformance'), { recursive: true });
  writeFileSync(
    join(dir, 'dist', 'conformance', 'cli.js'),
    "console.log('ran dist', process.argv.slice(2).join(' '));\n",
  );
  if (withSource)
    writeFileSync(
      join(dir, 'cli.ts'),
      "const args: string[] = process.argv.slice(2);\nconsole.log('ran source', args.join(' '), process.env.CONFORMANCE_INVOKED_AS);\n",
    );
  return dir;
}

describe('conformance/bin.mjs', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('runs the TypeScript source beside it, not a dist/ left there, and names itself for the rerun lines', async () => {
    const dir = kitFolder(true);
    dirs.push(dir);
    const bin = join(dir, 'bin.mjs');
    const { stdout } = await run(process.execPath, [bin, '--list'], { cwd: dir });
    expect(stdout.trim()).toBe(`ran source --list ${bin}`);
  }, 60_000);

  it('runs the compiled CLI where there is no source (the installed package)', async () => {
    const dir = kitFolder(false);
    dirs.push(dir);
    const { stdout } = await run(process.execPath, [join(dir, 'bin.mjs'), '--list'], { cwd: dir });
    expect(stdout.trim()).toBe('ran dist --list');
  }, 60_000);
});
