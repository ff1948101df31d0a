#!/usr/bin/env node
// `npx domain-sales-conformance …`: runs the TypeScript CLI through tsx (a dependency).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const tsx = join(dirname(require.resolve('tsx/package.json')), 'dist', 'cli.mjs');
const cli = join(dirname(fileURLToPath(import.meta.url)), 'cli.ts');
const { status } = spawnSync(process.execPath, [tsx, cli, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(status ?? 2);
