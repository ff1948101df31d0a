// npm run docs — offline HTML reference docs (Redoc, scripts inlined) for the three APIs,
// built from generated/ into docs-build/ (git-ignored). Open docs-build/index.html.
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { APIS, ROOT, bundlePath } from './contract.ts';

const run = promisify(execFile);
const OUT = join(ROOT, 'docs-build');
const TITLES = { partner: 'Partner API', public: 'Public API, OAuth 2.1 and MCP', admin: 'Operator API' } as const;

await mkdir(OUT, { recursive: true });
for (const api of APIS) {
  const output = join(OUT, `${api}.html`);
  await run(
    join(ROOT, 'node_modules', '.bin', 'redocly'),
    ['build-docs', bundlePath(api), '--inlineBundle', '--title', TITLES[api], '-o', output],
    { cwd: ROOT, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, REDOCLY_TELEMETRY: 'off' } },
  );
  console.log(`wrote ${output}`);
}
const links = APIS.map((api) => `<li><a href="${api}.html">${TITLES[api]}</a></li>`).join('\n');
await writeFile(
  join(OUT, 'index.html'),
  `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Domain Sales API reference</title></head>\n<body><h1>Domain Sales API reference</h1>\n<ul>\n${links}\n</ul></body></html>\n`,
);
console.log(`wrote ${join(OUT, 'index.html')}`);
