// Structural limits of request bodies (each document's `x-body-limits`): a JSON body nested more
// than 32 levels deep or holding more than 4,096 members, and a form with more than 64 fields, are
// 400 `validation_error` on every surface, found before anything parses them. Parsing such a
// body used to block the event loop (a 1 MiB `[[[…]]]` took JSON.parse 75-300 ms, a 1 MiB form of
// 100,000 fields longer), so the refusal must also be cheap: it is timed against a body of the
// same size that is within the limits.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startHarness, type Harness } from '../server/harness.ts';
import { expectError, signedRequest, type Credential } from '../server/support/http.ts';
import { median } from './support.ts';

const MIB = 1024 * 1024;
const nested = (levels: number, inner = '0') => `${'['.repeat(levels)}${inner}${']'.repeat(levels)}`;
const deepObject = (levels: number): unknown => (levels === 0 ? 'leaf' : { a: deepObject(levels - 1) });
/** Just under 1 MiB: the worst a body within the byte limit can be. */
const DEEP_MIB = nested(MIB / 2 - 8);
const FLAT_MIB = JSON.stringify({ q: 'x'.repeat(MIB - 16) });
const FORM_FIELDS_MIB = Array.from({ length: 100_000 }, (_, i) => `f${i}=1`)
  .join('&')
  .slice(0, MIB - 8);
const FORM_ONE_FIELD_MIB = `grant_type=${'x'.repeat(MIB - 16)}`;

const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};

describe('structural limits of request bodies', () => {
  let h: Harness;
  let cred: Credential;
  beforeAll(async () => {
    h = await startHarness({ inventorySize: 20, dispatch: false });
    cred = await h.mint({ scopes: ['search', 'buy'], rate_limits: { write: 1000 } });
  });
  afterAll(() => h.close());
  // A fresh window of the public rate limit (60 a minute per address) for every test.
  beforeEach(() => h.clock.advance(61_000));

  const post = (path: string, body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
    fetch(`${h.baseUrl}${path}`, { method: 'POST', headers, body });
  const timedPost = async (path: string, body: string, headers?: Record<string, string>) => {
    const started = performance.now();
    const res = await post(path, body, headers);
    const text = await res.text();
    return { ms: performance.now() - started, status: res.status, text };
  };

  it('refuses a JSON body nested 33 levels deep where 32 pass: MCP, whose params may nest anything', async () => {
    const ping = (levels: number) =>
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: deepObject(levels) } });
    // The message itself is levels 1-2, `_meta` level 3: 30 more is 32 in all.
    const within = await post('/mcp', ping(30), MCP_HEADERS);
    expect(within.status, await within.clone().text()).toBe(200);
    const over = await post('/mcp', ping(31), MCP_HEADERS);
    const body = (await over.json()) as { code?: string; message?: string; details?: Array<{ path: string }> };
    expect(over.status).toBe(400);
    expect(body.code).toBe('validation_error');
    expect(body.message).toMatch(/32 levels deep.*x-body-limits/);
    expect(body.details?.[0]?.path).toBe('/body');
  });

  it('refuses a JSON body with more than 4,096 members in all, and says so', async () => {
    const wide = JSON.stringify({ q: 'coffee', many: Array.from({ length: 4095 }, () => 0) });
    const res = await post('/api/domain/search', wide);
    const body = (await res.json()) as { code?: string; message?: string };
    expect(res.status).toBe(400);
    expect(body).toMatchObject({ code: 'validation_error' });
    expect(body.message).toMatch(/4096 array elements and object members.*x-body-limits/);
  });

  it('refuses a 1 MiB [[[…]]] at about the cost of a 1 MiB body within the limits, not a parse', async () => {
    const deep: number[] = [];
    const flat: number[] = [];
    for (let i = 0; i < 6; i++) {
      const d = await timedPost('/api/domain/search', DEEP_MIB);
      const f = await timedPost('/api/domain/search', FLAT_MIB);
      expect(d.status, d.text.slice(0, 300)).toBe(400);
      expect(d.text).toMatch(/x-body-limits/);
      expect(f.status, f.text.slice(0, 300)).toBe(400); // q is over its maxLength: refused by the validator, after a parse
      deep.push(d.ms);
      flat.push(f.ms);
    }
    const summary = `median ${median(deep).toFixed(1)} ms for [[[…]]], ${median(flat).toFixed(1)} ms for a flat body of the same size`;
    console.log(`body limits, JSON: ${summary}`);
    expect(median(deep) - median(flat), summary).toBeLessThan(25);
  });

  it('refuses a form with more than 64 fields (the token endpoint answers it as RFC 6749 invalid_request)', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const fields = (n: number) => Array.from({ length: n }, (_, i) => `f${i}=1`).join('&');
    const over = await post('/api/oauth/token', `grant_type=refresh_token&refresh_token=rt_x&${fields(63)}`, form);
    const body = (await over.json()) as { error?: string; error_description?: string };
    expect(over.status).toBe(400);
    expect(body.error).toBe('invalid_request');
    expect(body.error_description).toMatch(/64 form fields.*x-body-limits/);
    const within = await post('/api/oauth/token', `grant_type=refresh_token&refresh_token=rt_x&${fields(62)}`, form);
    expect(within.status).toBe(400);
    expect(((await within.json()) as { error_description?: string }).error_description ?? '').not.toMatch(
      /x-body-limits/,
    );
  });

  it('refuses a 1 MiB form of 100,000 fields at about the cost of a 1 MiB one-field form, not a parse', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const many: number[] = [];
    const one: number[] = [];
    for (let i = 0; i < 5; i++) {
      const m = await timedPost('/api/oauth/token', FORM_FIELDS_MIB, form);
      const o = await timedPost('/api/oauth/token', FORM_ONE_FIELD_MIB, form);
      expect(m.status).toBe(400);
      expect(m.text).toMatch(/x-body-limits/);
      expect(o.status).toBe(400);
      many.push(m.ms);
      one.push(o.ms);
    }
    const summary = `median ${median(many).toFixed(1)} ms for 100,000 fields, ${median(one).toFixed(1)} ms for one field of the same size`;
    console.log(`body limits, form: ${summary}`);
    expect(median(many) - median(one), summary).toBeLessThan(25);
  });

  it('refuses an over-wide form on the hosted checkout page (its own form parser) with a 400 page', async () => {
    const fields = Array.from({ length: 80 }, (_, i) => `f${i}=1`).join('&');
    const res = await post('/checkout/pay', `pt=pt_x&${fields}`, {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'text/html',
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type') ?? '').toMatch(/^text\/html/);
    expect(await res.text()).toMatch(/64 form fields/);
  });

  it('refuses too deep a body on the partner surface (after authentication) and the operator API', async () => {
    const quote = await signedRequest(h, cred, {
      method: 'POST',
      path: '/api/partner/v1/quotes',
      body: JSON.stringify({ domain: 'a.com', x: deepObject(40) }),
    });
    expectError(quote, 'validation_error');
    expect(quote.body.message).toMatch(/x-body-limits/);
    const order = await signedRequest(h, cred, {
      method: 'POST',
      path: '/api/partner/v1/orders',
      body: nested(33),
      idempotencyKey: randomUUID(),
    });
    expectError(order, 'validation_error');
    expect(order.body.message).toMatch(/x-body-limits/);
    const admin = await fetch(`${h.baseUrl}/api/admin/v1/credentials`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ environment: 'sandbox', scopes: ['search'], x: deepObject(40) }),
    });
    expect(admin.status).toBe(400);
    expect(((await admin.json()) as { message?: string }).message).toMatch(/x-body-limits/);
  });
});
