#!/usr/bin/env node
// `npx domain-sales-conformance …`. Installed (@domain-sales/conformance), the compiled CLI in
// dist/ runs on plain Node. In this repository before `npm run build` there is no dist/: the
// TypeScript CLI runs through tsx (a devDependency of the workspace root).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const built = join(here, 'dist', 'conformance', 'cli.js');
if (existsSync(built)) {
  await import(pathToFileURL(built).href);
} else {
  const require = createRequire(import.meta.url);
  const tsx = join(dirname(require.resolve('tsx/package.json')), 'dist', 'cli.mjs');
  const { status } = spawnSync(process.execPath, [tsx, join(here, 'cli.ts'), ...process.argv.slice(2)], {
    stdio: 'inherit',
    // So the reports' rerun lines name this bin, not the TypeScript file (conformance/invocation.ts).
    env: { ...process.env, CONFORMANCE_INVOKED_AS: process.argv[1] ?? '' },
  });
  process.exit(status ?? 2);
}
