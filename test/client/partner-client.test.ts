// The partner client against a recording HTTP server. Signatures are checked by the independent
// Python implementation (spec/vectors/verify_vectors.py --requests), not by the module that made them.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPartnerClient, createPartnerFetch } from '../../client/partner.ts';
import { ROOT } from '../../scripts/contract.ts';

const run = promisify(execFile);
const SECRET = 'sk_test_5fQ2cJ8mN4pR7tV1xZ3bD6gH9kL0sW2y';
const KEY_ID = 'pk_test_8Hc2Lq4Xz7Nw1Rb5';

interface Recorded {
  method: string;
  target: string;
  headers: Record<string, string>;
  body: Buffer;
}

let server: Server;
let baseUrl = '';
let recorded: Recorded[] = [];
/** Statuses to answer, in order; then 200. */
let script: Array<{ status: number; headers?: Record<string, string>; body?: unknown }> = [];

beforeAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- a test server; vitest reports an unhandled rejection
  server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    recorded.push({ method: req.method ?? '', target: req.url ?? '', headers, body: Buffer.concat(chunks) });
    const next = script.shift() ?? { status: 200, body: { ok: true } };
    res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
    res.end(JSON.stringify(next.body ?? { code: 'internal_error', message: 'scripted failure' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  recorded = [];
  script = [];
});

async function independentlyVerified(requests: Recorded[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'recorded-'));
  try {
    const file = join(dir, 'requests.json');
    const payload = requests.map((r) => ({
      secret: SECRET,
      method: r.method,
      target: r.target,
      headers: r.headers,
      body_base64: r.body.toString('base64'),
    }));
    await writeFile(file, JSON.stringify(payload));
    const { stdout } = await run('python3', [join(ROOT, 'spec/vectors/verify_vectors.py'), '--requests', file]);
    return stdout.trim();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const fastRetry = { baseDelayMs: 1, maxDelayMs: 2 };

describe('createPartnerClient', () => {
  it('signs GET and POST requests, with awkward queries and non-ASCII bodies, so that an independent verifier accepts them', async () => {
    const client = createPartnerClient({ baseUrl, keyId: KEY_ID, secret: SECRET, retry: fastRetry });
    await client.GET('/api/partner/v1/availability', { params: { query: { domain: 'bestcoffeebeans.com' } } });
    await client.GET('/api/partner/v1/domains/search', { params: { query: { q: "café + (tea)! *'~ 😀｡" } } });
    await client.GET('/api/partner/v1/orders', { params: { query: { status: 'EXTERNALLY_PAID', limit: 10 } } });
    await client.POST('/api/partner/v1/quotes', { body: { domain: 'bestcoffeebeans.com' } });
    await client.POST('/api/partner/v1/orders', {
      params: { header: { 'Idempotency-Key': 'order-1' } },
      body: {
        domain: 'bestcoffeebeans.com',
        expected_price: 250000,
        currency: 'USD',
        buyer: { email: 'zoë@example.com' },
      },
    });
    expect(recorded).toHaveLength(5);
    for (const r of recorded) {
      expect(r.headers['x-service-key-id']).toBe(KEY_ID);
      expect(r.headers['x-service-timestamp']).toMatch(/^\d{10}$/);
      expect(r.headers['x-service-signature']).toMatch(/^v1=[0-9a-f]{64}$/);
    }
    expect(await independentlyVerified(recorded)).toBe('requests OK: 5 verified');
  });

  it('the independent verifier refuses a request altered after signing (the check can fail)', async () => {
    const client = createPartnerClient({ baseUrl, keyId: KEY_ID, secret: SECRET });
    await client.POST('/api/partner/v1/quotes', { body: { domain: 'bestcoffeebeans.com' } });
    const tampered = recorded.map((r) => ({ ...r, body: Buffer.from(r.body.toString().replace('best', 'worst')) }));
    await expect(independentlyVerified(tampered)).rejects.toThrow(/signature does not verify/);
  });

  it('createPartnerFetch: a fetch(input, init) for generated clients signs URL strings, URLs and Requests alike', async () => {
    const signedFetch = createPartnerFetch({ keyId: KEY_ID, secret: SECRET, retry: fastRetry });
    await signedFetch(`${baseUrl}/api/partner/v1/availability?domain=bestcoffeebeans.com`);
    await signedFetch(new URL(`${baseUrl}/api/partner/v1/quotes`), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ domain: 'café.com' }),
    });
    await signedFetch(
      new Request(`${baseUrl}/api/partner/v1/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"domain":"bestcoffeebeans.com"}',
      }),
    );
    expect(recorded.map((r) => r.method)).toEqual(['GET', 'POST', 'POST']);
    expect(recorded[1]!.body.toString()).toBe('{"domain":"café.com"}');
    // POST /orders got its Idempotency-Key, as through createPartnerClient.
    expect(recorded[2]!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(await independentlyVerified(recorded)).toBe('requests OK: 3 verified');
  });

  it('re-signs each retry with a fresh nonce and keeps one Idempotency-Key per logical POST /orders', async () => {
    const client = createPartnerClient({ baseUrl, keyId: KEY_ID, secret: SECRET, retry: fastRetry });
    script = [
      { status: 503 },
      { status: 429, headers: { 'retry-after': '0' }, body: { code: 'rate_limited', message: 'slow down' } },
    ];
    const body = {
      domain: 'bestcoffeebeans.com',
      expected_price: 250000,
      currency: 'USD',
      buyer: { email: 'a@example.com' },
    };
    // No Idempotency-Key given: the client supplies one per call.
    const first = await client.POST('/api/partner/v1/orders', { body });
    expect(first.response.status).toBe(200);
    await client.POST('/api/partner/v1/orders', { body });
    expect(recorded).toHaveLength(4);
    const keys = recorded.map((r) => r.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).toBe(keys[0]);
    expect(keys[3]).not.toBe(keys[0]);
    expect(new Set(recorded.map((r) => r.headers['x-service-nonce'])).size).toBe(4);
    expect(await independentlyVerified(recorded)).toBe('requests OK: 4 verified');
  });

  it('does not resend a POST without an Idempotency-Key after a 500', async () => {
    const client = createPartnerClient({ baseUrl, keyId: KEY_ID, secret: SECRET, retry: fastRetry });
    script = [{ status: 500 }];
    const { error, response } = await client.POST('/api/partner/v1/quotes', {
      body: { domain: 'bestcoffeebeans.com' },
    });
    expect(response.status).toBe(500);
    expect(error).toMatchObject({ code: 'internal_error' });
    expect(recorded).toHaveLength(1);
  });

  it('surfaces the service error as a typed value with code, message and request_id', async () => {
    const client = createPartnerClient({ baseUrl, keyId: KEY_ID, secret: SECRET });
    script = [
      { status: 422, body: { code: 'price_mismatch', message: 'expected_price 1 differs', request_id: 'req_1' } },
    ];
    const { data, error } = await client.POST('/api/partner/v1/orders', {
      params: { header: { 'Idempotency-Key': 'k-422' } },
      body: { domain: 'bestcoffeebeans.com', expected_price: 1, currency: 'USD', buyer: { email: 'a@example.com' } },
    });
    expect(data).toBeUndefined();
    expect(error).toEqual({ code: 'price_mismatch', message: 'expected_price 1 differs', request_id: 'req_1' });
  });

  it('refuses to run where a browser document exists', () => {
    const g = globalThis as { window?: unknown; document?: unknown };
    g.window = {};
    g.document = {};
    try {
      expect(() => createPartnerClient({ baseUrl, keyId: KEY_ID, secret: SECRET })).toThrow(/never in a browser/);
    } finally {
      delete g.window;
      delete g.document;
    }
  });
});
