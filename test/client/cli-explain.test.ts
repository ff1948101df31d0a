// `domain-sales request --explain` and `verify-webhook --explain` as child processes, against the
// known-answer vectors of spec/vectors/signing.json: the printed string to sign, line by line and
// as one JSON string, and the printed signatures must be the vector's own values (never values
// computed by the module under test).
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from './support/cli.ts';

interface SignatureVector {
  name: string;
  secret: string;
  method: string;
  path: string;
  query: string;
  timestamp: string;
  nonce: string;
  body: string;
  canonical_string: string;
  signature: string;
}
interface WebhookVector {
  name: string;
  secret: string;
  body: string;
  signature: string;
}
const vectors = JSON.parse(await readFile(join(ROOT, 'spec/vectors/signing.json'), 'utf8')) as {
  signatures: SignatureVector[];
  webhooks: WebhookVector[];
};

// The cases a partner trips on: reserved characters and a literal plus, code-point order, kept
// path escapes, a lowercase method, non-ASCII and CRLF bodies, a query beside a body, no body.
const REQUEST_CASES = [
  'GET with a literal plus, reserved characters and lowercase escapes',
  'GET whose query sorts by code point (U+FF61 before U+1F600)',
  'path lowercase escapes are not normalised',
  'lowercase method is uppercased',
  'POST with a non-ASCII JSON body (é, ü)',
  'POST body with CRLF line endings',
  'POST with a query and a body',
  'POST without a body',
  'nonce with printable punctuation is signed as sent',
].map((name) => {
  const found = vectors.signatures.find((v) => v.name === name);
  if (!found) throw new Error(`no signature vector named ${name}`);
  return found;
});

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cli-explain-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The lines of the numbered block and the JSON string printed by --explain. */
function printedString(stdout: string): { numbered: string[]; json: string } {
  const numbered = [...stdout.matchAll(/^ {2}(\d) [A-Z_0-9]+ +\|(.*)\|$/gmu)].map((m) => m[2]!);
  const jsonLine = /^As one JSON string.*\n {2}(".*")$/mu.exec(stdout)?.[1];
  if (jsonLine === undefined) throw new Error(`no JSON string in:\n${stdout}`);
  return { numbered, json: JSON.parse(jsonLine) as string };
}

describe('domain-sales request --explain', () => {
  it.each(REQUEST_CASES.map((v) => [v.name, v] as const))(
    "prints the vector's string and signature: %s",
    async (_, v) => {
      const args = ['request', v.method, v.query ? `${v.path}?${v.query}` : v.path, '--explain'];
      args.push('--timestamp', v.timestamp, '--nonce', v.nonce);
      if (v.body !== '') {
        const file = join(dir, `${v.name.replace(/\W+/g, '-')}.json`);
        await writeFile(file, v.body, 'utf8');
        args.push('--data', `@${file}`);
      }
      const run = await runCli(args, { SERVICE_KEY_ID: 'pk_test_vectors', SERVICE_SECRET: v.secret });
      expect(run.code, run.stderr).toBe(0);
      const { numbered, json } = printedString(run.stdout);
      expect(json).toBe(v.canonical_string);
      expect(numbered).toEqual(v.canonical_string.split('\n'));
      expect(run.stdout).toContain(`X-Service-Signature: ${v.signature}\n`);
      expect(run.stdout).toMatch(/^The request \(nothing is sent with --explain\)/);
      // The secret itself is never printed.
      expect(run.stdout).not.toContain(v.secret);
    },
  );

  it('--timestamp without --explain is a usage error', async () => {
    const run = await runCli(['request', 'GET', '/api/partner/v1/events', '--timestamp', '1'], {
      SERVICE_KEY_ID: 'pk_test_x',
      SERVICE_SECRET: 'sk_test_x',
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--timestamp and --nonce only go with --explain/);
  });
});

describe('domain-sales verify-webhook --explain', () => {
  const v = vectors.webhooks.find((w) => w.name === 'non-ASCII body (é, U+1F600)')!;
  const sha256 = (text: string) => createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex');

  it("prints the body's length and SHA-256 and the vector's signature as the expected one", async () => {
    const run = await runCli(
      ['verify-webhook', '--explain', '--secret', v.secret, '--signature', v.signature],
      {},
      v.body,
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^valid: /);
    expect(run.stdout).toContain(`body: ${Buffer.byteLength(v.body, 'utf8')} bytes, SHA-256 ${sha256(v.body)}\n`);
    expect(run.stdout).toContain(`expected X-Service-Signature: ${v.signature}\n`);
    expect(run.stdout).toContain(`given    X-Service-Signature: ${v.signature}\n  identical`);
    expect(run.stdout).not.toContain(v.secret);
  });

  it('shows the expected signature beside a wrong one for a tampered body', async () => {
    const tampered = `${v.body} `;
    const run = await runCli(
      ['verify-webhook', '--explain', '--secret', v.secret, '--signature', v.signature],
      {},
      tampered,
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`body: ${Buffer.byteLength(tampered, 'utf8')} bytes, SHA-256 ${sha256(tampered)}\n`);
    expect(run.stdout).toContain(`given    X-Service-Signature: ${v.signature}\n  different`);
    expect(run.stdout).not.toContain(`expected X-Service-Signature: ${v.signature}\n`);
  });
});
