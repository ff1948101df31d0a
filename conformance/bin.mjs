#!/usr/bin/env node
// `npx domain-sales-conformance …`. Installed (@domain-sales/conformance), the compiled CLI in
// dist/ runs on plain Node. In this repository the TypeScript source beside this file runs,
// through tsx (a devDependency of the workspace root), whether or not a dist/ is there: `npm pack`
// (the packages test) leaves one behind, which would be stale after the next edit, and is
// rewritten while another test runs this bin.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const source = join(here, 'cli.ts');
if (!existsSync(source)) {
  await import(pathToFileURL(join(here, 'dist', 'conformance', 'cli.js')).href);
} else {
  // tsx's loader in a plain node, not the tsx command: that one SIGKILLs a child that does not
  // acknowledge a relayed signal within 30 ms, and the kit would not undo its run. The kit's
  // parent is then this process, whose end the kit notices (cli.ts, its launcher).
  const require = createRequire(import.meta.url);
  const loader = pathToFileURL(join(dirname(require.resolve('tsx/package.json')), 'dist', 'loader.mjs')).href;
  const { status } = spawnSync(process.execPath, ['--import', loader, source, ...process.argv.slice(2)], {
    stdio: 'inherit',
    // So the reports' rerun lines name this bin, not the TypeScript file (conformance/invocation.ts).
    env: { ...process.env, CONFORMANCE_INVOKED_AS: process.argv[1] ?? '' },
  });
  process.exit(status ?? 2);
}
