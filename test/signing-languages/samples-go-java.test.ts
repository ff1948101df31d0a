// The Go and Java code samples of the partner reference compile, with their signer, under the
// language's own compiler: every operation's sample, as the docs page shows it (read from the
// built page, not re-rendered here). A sample that drifts from its signer's API (a renamed
// function, a wrong argument) fails here. A missing toolchain FAILS, never skips.
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDocumentSources } from '../../server/docs/index.ts';
import { buildSite } from '../../server/docs/site.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// A bound for a cold compiler on a busy machine, not a measurement.
const COMPILE_LIMIT_MS = 300_000;

const markdown = buildSite(loadDocumentSources()).pages.get('partner-api')!.markdown;
const samples = (fence: string) =>
  [...markdown.matchAll(new RegExp(`^\`\`\`${fence}\\n([\\s\\S]*?)\\n\`\`\`$`, 'gm'))].map((m) => m[1]!);
const compiled = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (err: Error & { stderr?: string }) => err.stderr || err.message,
  );

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'signing-samples-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the code samples on the partner reference compile with their signer', () => {
  it(
    'Go: every operation sample, with signing.go, under go build',
    async () => {
      const go = samples('go');
      expect(go.length).toBeGreaterThan(20);
      const module = join(dir, 'go');
      await mkdir(module);
      await copyFile(join(ROOT, 'examples/signing/go/signing.go'), join(module, 'signing.go'));
      await writeFile(join(module, 'go.mod'), 'module samples\n\ngo 1.19\n');
      const functions = go.map(
        (body, i) =>
          `func sample${i}(baseURL, idempotencyKey string) error {\n${body}\nif err != nil {\nreturn err\n}\nreturn res.Body.Close()\n}`,
      );
      await writeFile(
        join(module, 'samples.go'),
        `package main\n\nimport (\n"bytes"\n"net/http"\n"os"\n)\n\n${functions.join('\n\n')}\n\nfunc main() {}\n`,
      );
      const env = { ...process.env, GOWORK: 'off' };
      expect(
        await compiled(
          run('go', ['build', '-o', join(module, 'samples'), '.'], { cwd: module, timeout: COMPILE_LIMIT_MS, env }),
        ),
      ).toBe('ok');
    },
    COMPILE_LIMIT_MS,
  );

  it(
    'Java: every operation sample, with DomainSalesSigning.java, under javac',
    async () => {
      const java = samples('java');
      expect(java.length).toBeGreaterThan(20);
      const src = join(dir, 'java');
      await mkdir(src);
      const methods = java.map(
        (body, i) => `  static void sample${i}(String baseUrl, String idempotencyKey) throws Exception {\n${body}\n  }`,
      );
      await writeFile(
        join(src, 'Samples.java'),
        [
          'import java.net.URI;',
          'import java.net.http.HttpClient;',
          'import java.net.http.HttpRequest;',
          'import java.net.http.HttpResponse;',
          'import java.nio.charset.StandardCharsets;',
          'import java.util.Map;',
          '',
          'final class Samples {',
          ...methods,
          '}',
          '',
        ].join('\n'),
      );
      const javac = run(
        'javac',
        [
          '-d',
          join(src, 'out'),
          join(ROOT, 'examples/signing/java/DomainSalesSigning.java'),
          join(src, 'Samples.java'),
        ],
        { timeout: COMPILE_LIMIT_MS },
      );
      expect(await compiled(javac)).toBe('ok');
    },
    COMPILE_LIMIT_MS,
  );
});
