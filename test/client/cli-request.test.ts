// `domain-sales request` as a child process against the in-process reference server, with a
// credential minted through the admin API. What the CLI prints is checked against what the server
// answers to requests signed by the test support (test/server/support/http.ts), not by the CLI.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../server/harness.ts';
import { domainSource, signedRequest, type Credential } from '../server/support/http.ts';
import { runCli } from './support/cli.ts';

const run = promisify(execFile);
const CURL = '/usr/bin/curl';
const V1 = '/api/partner/v1';

let h: Harness;
let cred: Credential;
let env: Record<string, string>;
const take = domainSource();

beforeAll(async () => {
  h = await startHarness({ inventorySize: 500 });
  cred = await h.mint({ rate_limits: { search: 10_000, write: 10_000, reporting: 10_000 } });
  env = { SERVICE_KEY_ID: cred.key_id, SERVICE_SECRET: cred.secret, SERVICE_BASE_URL: h.baseUrl };
});
afterAll(async () => {
  await h?.close();
});

/** The body after the blank line that ends the printed headers. */
const printedBody = (stdout: string) => JSON.parse(stdout.slice(stdout.indexOf('\n\n') + 2)) as Record<string, unknown>;

/** Runs a printed curl command in a POSIX shell. */
async function sh(command: string): Promise<string> {
  const { stdout } = await run('/bin/sh', ['-c', command]);
  return stdout;
}

const curlStatus = (output: string) => Number(/^HTTP\/[\d.]+ (\d{3})/.exec(output)?.[1]);
const curlBody = (output: string) =>
  JSON.parse(output.slice(output.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;

describe('domain-sales request', () => {
  it('signs a GET, prints 200, the headers and the body the server gives, exit 0', async () => {
    const d = await take(h, cred);
    const result = await runCli(['request', 'GET', `${V1}/pricing?domain=${d.domain}`], env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^HTTP 200 OK\n/);
    expect(result.stdout).toMatch(/^x-request-id: \S+$/m);
    expect(result.stdout).toMatch(/^content-type: application\/json/m);
    const body = printedBody(result.stdout);
    expect(body.domain).toBe(d.domain);
    expect(body.price_cents).toBe(d.price);
  });

  it('takes --base-url over SERVICE_BASE_URL and a short path under /api/partner/v1', async () => {
    const d = await take(h, cred);
    const result = await runCli(['request', 'get', `/pricing?domain=${d.domain}`, '--base-url', h.baseUrl], {
      ...env,
      SERVICE_BASE_URL: 'http://127.0.0.1:9',
    });
    expect(result.code).toBe(0);
    expect(printedBody(result.stdout).price_cents).toBe(d.price);
  });

  it('POSTs --data byte for byte, with an Idempotency-Key for /orders, and the order is there afterwards', async () => {
    const d = await take(h, cred);
    const data = JSON.stringify({
      domain: d.domain,
      expected_price: d.price,
      currency: d.currency,
      buyer: { email: 'jane@example.org', country: 'US' },
      external_payment_ref: 'zoë-ref-1',
    });
    const result = await runCli(['request', 'POST', `${V1}/orders`, '--data', data], env);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^HTTP 201 Created\n/);
    const order = printedBody(result.stdout);
    const read = await signedRequest(h, cred, { path: `${V1}/orders/${String(order.public_id)}` });
    expect(read.status).toBe(200);
    expect(read.body.domain).toBe(d.domain);
    expect(read.body.external_payment_ref).toBe('zoë-ref-1');
  });

  it('prints a 401 and exits 1 when the secret is wrong', async () => {
    const result = await runCli(['request', 'GET', `${V1}/events`], {
      ...env,
      SERVICE_SECRET: 'sk_test_not_the_secret_0000000000',
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^HTTP 401 /);
    expect(printedBody(result.stdout).code).toBe('invalid_signature');
  });

  it('--curl prints a command that /usr/bin/curl runs successfully, once, within the signing window', async () => {
    const d = await take(h, cred);
    const result = await runCli(['request', 'GET', `${V1}/pricing?domain=${d.domain}`, '--curl'], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^curl /);
    expect(result.stderr).toMatch(/valid until .* \+ 300 s, x-signing timestamp-skew-seconds read from the deployment/);
    const first = await sh(result.stdout.replace(/^curl /, `${CURL} `));
    expect(curlStatus(first), first).toBe(200);
    expect(curlBody(first).price_cents).toBe(d.price);
    // The nonce is single-use: the same command again is a replay.
    const again = await sh(result.stdout.replace(/^curl /, `${CURL} `));
    expect(curlStatus(again)).toBe(401);
    expect(curlBody(again).code).toBe('replay_detected');
  });

  it('--curl quotes a body with quotes, spaces, $, backticks and non-ASCII text for the shell, and signs those bytes', async () => {
    const d = await take(h, cred);
    const ref = `o'brien "q" $HOME \`id\` café 😀 \\ end`;
    const data = JSON.stringify({
      domain: d.domain,
      expected_price: d.price,
      currency: d.currency,
      buyer: { email: 'jane@example.org', country: 'US' },
      external_payment_ref: ref,
    });
    const result = await runCli(['request', 'POST', `${V1}/orders`, '--data', data, '--curl'], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/-H 'Idempotency-Key: [0-9a-f-]{36}'/);
    const output = await sh(result.stdout.replace(/^curl /, `${CURL} `));
    expect(curlStatus(output), output).toBe(201);
    expect(curlBody(output).external_payment_ref).toBe(ref);
  });

  it("--curl works until exactly 300 s after its timestamp and is refused at 301 s (the window is the spec's)", async () => {
    const d = await take(h, cred);
    const result = await runCli(['request', 'GET', `${V1}/pricing?domain=${d.domain}`, '--curl'], env);
    const timestamp = Number(/X-Service-Timestamp: (\d+)/.exec(result.stdout)?.[1]);
    expect(result.stderr).toContain(`valid until ${new Date((timestamp + 300) * 1000).toISOString()}`);
    const start = h.clock.now();
    try {
      h.clock.set((timestamp + 300) * 1000 + 999);
      const inside = await sh(result.stdout.replace(/^curl /, `${CURL} `));
      expect(curlStatus(inside), inside).toBe(200);
      h.clock.set((timestamp + 301) * 1000);
      const outside = await sh(result.stdout.replace(/^curl /, `${CURL} `));
      expect(curlStatus(outside)).toBe(401);
      expect(curlBody(outside).code).toBe('invalid_timestamp');
    } finally {
      h.clock.set(start);
    }
  });

  it('answers usage mistakes with one line on stderr and exit 2', async () => {
    const cases = [
      [['request', 'GET'], env, /give METHOD and PATH/],
      [['request', 'GET', 'events'], env, /PATH must start with "\/"/],
      [['request', 'POST', `${V1}/quotes`, '--data', '{not json'], env, /--data is not valid JSON/],
      [['request', 'GET', `${V1}/events`, '--data', '{}'], env, /--data cannot be sent with GET/],
      [['request', 'GET', `${V1}/events`], { SERVICE_BASE_URL: h.baseUrl }, /set SERVICE_KEY_ID and SERVICE_SECRET/],
      [['request', 'GET', `${V1}/events`, '--base-url', 'ftp://x'], env, /must be http:\/\/ or https:\/\//],
      [['frobnicate'], env, /unknown command "frobnicate"/],
    ] as const;
    for (const [args, e, message] of cases) {
      const result = await runCli([...args], e);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(result.stderr).toMatch(message);
    }
  });

  it('prints its help with exit 0', async () => {
    const result = await runCli(['request', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: domain-sales request METHOD PATH/);
  });
});
