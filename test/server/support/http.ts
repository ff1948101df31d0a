// Hand-built partner requests (every header under the test's control) and the assertions every
// integration test shares. Expectations come from the contract (support/contract.ts).
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { createPartnerClient, type PartnerClient } from '../../../client/partner.ts';
import { HEADERS, sign } from '../../../client/protocol/index.ts';
import { generateInventory } from '../../../server/inventory/generate.ts';
import { postgresUrl, type Harness } from '../harness.ts';
import { STATUS_OF_CODE } from './contract.ts';

export interface Credential {
  key_id: string;
  secret: string;
  partner_id: string;
}

export interface RawRequest {
  method?: string;
  /** The raw path, e.g. `/api/partner/v1/pricing`. */
  path: string;
  /** The raw query string without `?`, sent and signed exactly as given. */
  query?: string;
  /** A string is sent as is; anything else as JSON. */
  body?: unknown;
  /** Extra headers (content-type defaults to JSON when there is a body). */
  headers?: Record<string, string>;
  idempotencyKey?: string;
  /** Overrides of what is signed and sent. */
  timestamp?: string;
  nonce?: string;
  keyId?: string;
  /** Secret to sign with (default: the credential's). */
  signWith?: string;
  /** Body bytes to sign when they should differ from the ones sent. */
  signBody?: string;
  /** Signature header to send instead of the computed one. */
  signature?: string;
  /** Header names to leave out. */
  omit?: string[];
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON body, or undefined when the body is not JSON. */
  body: any;
}

export async function toReply(res: Response): Promise<Reply> {
  const text = await res.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, text, body };
}

/** Unix seconds of the harness's (signature) clock. */
export const nowSeconds = (h: Harness) => Math.floor(h.clock.now() / 1000);

/** Sends one request signed with the v1 scheme, with every part overridable. */
export async function signedRequest(h: Harness, cred: Credential, req: RawRequest): Promise<Reply> {
  const method = (req.method ?? 'GET').toUpperCase();
  const body = req.body === undefined ? '' : typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
  const timestamp = req.timestamp ?? String(nowSeconds(h));
  const nonce = req.nonce ?? randomUUID();
  const query = req.query ?? '';
  const headers: Record<string, string> = {
    [HEADERS.keyId]: req.keyId ?? cred.key_id,
    [HEADERS.timestamp]: timestamp,
    [HEADERS.nonce]: nonce,
    [HEADERS.signature]:
      req.signature ??
      sign({
        secret: req.signWith ?? cred.secret,
        method,
        path: req.path,
        query,
        timestamp,
        nonce,
        body: Buffer.from(req.signBody ?? body, 'utf8'),
      }),
  };
  if (body !== '') headers['content-type'] = 'application/json';
  if (req.idempotencyKey !== undefined) headers[HEADERS.idempotencyKey] = req.idempotencyKey;
  Object.assign(headers, req.headers ?? {});
  for (const name of req.omit ?? []) {
    for (const k of Object.keys(headers)) if (k.toLowerCase() === name.toLowerCase()) delete headers[k];
  }
  const res = await fetch(`${h.baseUrl}${req.path}${query ? `?${query}` : ''}`, {
    method,
    headers,
    ...(method === 'GET' || method === 'HEAD' ? {} : { body }),
  });
  return toReply(res);
}

/** The typed partner client on the harness's clock (a fresh nonce per attempt). */
export function partnerClient(
  h: Harness,
  cred: Credential,
  options: { retry?: false | { maxAttempts?: number; baseDelayMs?: number } } = {},
): PartnerClient {
  return createPartnerClient({
    baseUrl: h.baseUrl,
    keyId: cred.key_id,
    secret: cred.secret,
    now: () => h.clock.now(),
    ...(options.retry !== undefined ? { retry: options.retry } : {}),
  });
}

/** An error answer as the contract fixes it: status of the code, Error shape, request id. */
export function expectError(reply: Reply, code: string): void {
  const status = STATUS_OF_CODE[code];
  if (status === undefined) throw new Error(`the contract has no error code ${code}`);
  expect({
    status: reply.status,
    code: reply.body?.code,
    text: reply.status === status ? undefined : reply.text,
  }).toEqual({ status, code, text: undefined });
  expect(reply.headers.get('content-type') ?? '').toMatch(/^application\/json/);
  expect(typeof reply.body.message).toBe('string');
  expect(reply.body.message.length).toBeGreaterThan(0);
  const requestId = reply.headers.get('x-request-id');
  expect(requestId).toBeTruthy();
  expect(reply.body.request_id).toBe(requestId);
  for (const key of Object.keys(reply.body)) expect(['code', 'message', 'request_id', 'details']).toContain(key);
  if (reply.body.details !== undefined) {
    expect(Array.isArray(reply.body.details)).toBe(true);
    for (const d of reply.body.details) {
      expect(typeof d.path).toBe('string');
      expect(typeof d.message).toBe('string');
    }
  }
}

export interface RateLimitState {
  className: string;
  quota: number;
  window: number;
  remaining: number;
  reset: number;
}

/** The five rate-limit headers of spec/shared/headers.yaml, consistent with each other; returns what they say. */
export function expectRateLimitHeaders(
  reply: Reply,
  expected?: { className?: string; quota?: number },
): RateLimitState {
  const policy = reply.headers.get('ratelimit-policy');
  const current = reply.headers.get('ratelimit');
  const p = /^"([a-z_]+)";q=(\d+);w=(\d+)$/.exec(policy ?? '');
  const c = /^"([a-z_]+)";r=(\d+);t=(\d+)$/.exec(current ?? '');
  expect(p, `RateLimit-Policy: ${policy}`).not.toBeNull();
  expect(c, `RateLimit: ${current}`).not.toBeNull();
  const state: RateLimitState = {
    className: p![1]!,
    quota: Number(p![2]),
    window: Number(p![3]),
    remaining: Number(c![2]),
    reset: Number(c![3]),
  };
  expect(c![1]).toBe(state.className);
  expect(reply.headers.get('ratelimit-limit')).toBe(String(state.quota));
  expect(reply.headers.get('ratelimit-remaining')).toBe(String(state.remaining));
  expect(reply.headers.get('ratelimit-reset')).toBe(String(state.reset));
  expect(state.remaining).toBeLessThanOrEqual(state.quota);
  expect(state.reset).toBeLessThanOrEqual(state.window);
  if (expected?.className !== undefined) expect(state.className).toBe(expected.className);
  if (expected?.quota !== undefined) expect(state.quota).toBe(expected.quota);
  return state;
}

/** The databases the integration tests run on: SQLite always, PostgreSQL when DATABASE_URL is set. */
export function databases(): Array<{ name: string; databaseUrl: string | undefined }> {
  const url = postgresUrl();
  return [{ name: 'sqlite', databaseUrl: undefined }, ...(url ? [{ name: 'postgres', databaseUrl: url }] : [])];
}

export const INVENTORY_SIZE = 500;

export interface Listing {
  domain: string;
  price: number;
  currency: string;
}

/**
 * Hands out listed sandbox domains one at a time, each used by one test only. Names come from the
 * sandbox fixture (the generator the harness seeds the inventory with); the price is read through
 * the partner API (GET /pricing), as a partner would.
 */
export function domainSource(size = INVENTORY_SIZE): (h: Harness, cred: Credential) => Promise<Listing> {
  const names = [...generateInventory({ size, seed: 1 })].map((r) => r.domain);
  let next = 0;
  return async (h, cred) => {
    const domain = names[next++];
    if (!domain) throw new Error('the sandbox fixture ran out of domains');
    const r = await signedRequest(h, cred, { path: '/api/partner/v1/pricing', query: `domain=${domain}` });
    expect(r.status, r.text).toBe(200);
    return { domain, price: r.body.price_cents as number, currency: r.body.currency as string };
  };
}

export const orderBody = (d: Listing, extra: Record<string, unknown> = {}) => ({
  domain: d.domain,
  expected_price: d.price,
  currency: d.currency,
  buyer: { email: 'jane.doe@example.org', country: 'US' },
  ...extra,
});

/** POST /orders with a fresh Idempotency-Key; expects 201 and returns the order. */
export async function createOrder(
  h: Harness,
  cred: Credential,
  d: Listing,
  extra: Record<string, unknown> = {},
): Promise<any> {
  const r = await signedRequest(h, cred, {
    method: 'POST',
    path: '/api/partner/v1/orders',
    body: orderBody(d, extra),
    idempotencyKey: randomUUID(),
  });
  expect(r.status, r.text).toBe(201);
  return r.body;
}

/** Polls until `check` returns a value (not undefined), or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 5000,
  what = 'condition',
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
