// `npm run docs` must produce reference pages that work offline: Redoc's script inlined,
// nothing loaded from a CDN at view time.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { APIS, ROOT } from '../../scripts/contract.ts';

const run = promisify(execFile);

describe('npm run docs', () => {
  it('builds one self-contained HTML page per API and an index', async () => {
    await run(join(ROOT, 'node_modules', '.bin', 'tsx'), ['scripts/docs.ts'], {
      cwd: ROOT,
      maxBuffer: 16 * 1024 * 1024,
    });
    const index = await readFile(join(ROOT, 'docs-build', 'index.html'), 'utf8');
    for (const api of APIS) {
      expect(index).toContain(`href="${api}.html"`);
      const html = await readFile(join(ROOT, 'docs-build', `${api}.html`), 'utf8');
      expect(html).not.toMatch(/<script[^>]+src=["']https?:/);
      expect(html.length).toBeGreaterThan(500_000);
      const title = JSON.parse(await readFile(join(ROOT, 'generated', `${api}.openapi.json`), 'utf8')).info
        .title as string;
      expect(html).toContain(title);
    }
  }, 60_000);
});
