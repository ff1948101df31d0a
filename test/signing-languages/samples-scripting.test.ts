// The Python, PHP, Ruby and shell code samples of the partner reference parse under the
// language's own toolchain and call a function their signer defines: every operation's sample,
// as the docs page shows it (read from the built page, not re-rendered here). A sample that
// drifts from its signer (a renamed function) or a template that breaks a language's quoting
// fails here. A missing toolchain FAILS, never skips (.ci/run installs them).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDocumentSources } from '../../server/docs/index.ts';
import { buildSite } from '../../server/docs/site.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// A bound for a cold interpreter on a busy machine, not a measurement.
const CHECK_LIMIT_MS = 120_000;

const markdown = buildSite(loadDocumentSources()).pages.get('partner-api')!.markdown;
const samples = (fence: string) =>
  [...markdown.matchAll(new RegExp(`^\`\`\`${fence}\\n([\\s\\S]*?)\\n\`\`\`$`, 'gm'))].map((m) => m[1]!);
const checked = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (err: Error & { stderr?: string; stdout?: string }) => err.stderr || err.stdout || err.message,
  );

const LANGUAGES = [
  {
    fence: 'py',
    ext: 'py',
    signer: 'examples/signing/python/domain_sales_signing.py',
    defines: (name: string) => new RegExp(`^def ${name}\\(`, 'm'),
    check: (file: string) => run('python3', ['-m', 'py_compile', file], { timeout: CHECK_LIMIT_MS }),
  },
  {
    fence: 'php',
    ext: 'php',
    signer: 'examples/signing/php/domain_sales_signing.php',
    defines: (name: string) => new RegExp(`^function ${name}\\(`, 'm'),
    check: (file: string) => run('php', ['-l', file], { timeout: CHECK_LIMIT_MS }),
  },
  {
    fence: 'rb',
    ext: 'rb',
    signer: 'examples/signing/ruby/domain_sales_signing.rb',
    defines: (name: string) => new RegExp(`^\\s*def ${name}\\(`, 'm'),
    check: (file: string) => run('ruby', ['-c', file], { timeout: CHECK_LIMIT_MS }),
  },
  {
    fence: 'sh',
    ext: 'sh',
    signer: 'examples/signing/shell/sign.sh',
    defines: (name: string) => new RegExp(`^\\s*${name}:`, 'm'), // a command of sign.sh's main
    check: (file: string) => run('bash', ['-n', file], { timeout: CHECK_LIMIT_MS }),
  },
] as const;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'signing-script-samples-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the scripting-language samples on the partner reference', () => {
  for (const lang of LANGUAGES) {
    it(
      `${lang.fence}: every operation sample parses and calls its signer`,
      async () => {
        // The curl sample shares the shell's fence: it is the partner CLI's line, not sign.sh's.
        const found = samples(lang.fence).filter((sample) => !sample.startsWith('domain-sales request '));
        expect(found.length).toBeGreaterThan(20);
        const signer = readFileSync(join(ROOT, lang.signer), 'utf8');
        const called = lang.fence === 'sh' ? 'request' : 'signed_headers';
        expect(signer).toMatch(lang.defines(called));
        for (const [i, sample] of found.entries()) {
          expect(sample, `sample ${i}`).toContain(lang.fence === 'sh' ? 'sign.sh request ' : `${called}(`);
          const file = join(dir, `sample${i}.${lang.ext}`);
          await writeFile(file, `${sample}\n`);
          expect(await checked(lang.check(file)), `sample ${i}:\n${sample}`).toBe('ok');
        }
      },
      CHECK_LIMIT_MS * 4,
    );
  }
});
