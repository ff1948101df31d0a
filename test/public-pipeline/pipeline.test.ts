// The public pipeline in front of fake handlers: rate limits, bearer rules, error shapes and
// idempotency are the pipeline's, whatever the handlers behind it do. Real store (SQLite in
// memory), real OpenAPI document, a clock the test moves.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Contract } from '../../server/contract/index.ts';
import { manualClock } from '../../server/clock.ts';
import { NO_FAULTS } from '../../server/faults.ts';
import { errorHandler } from '../../server/http/errors.ts';
import { rawBody } from '../../server/http/raw-body.ts';
import { requestId } from '../../server/http/request-id.ts';
import type { HandlerMap, Viewer } from '../../server/public-api/context.ts';
import { publicRouter } from '../../server/public-api/router.ts';
import { secretBox } from '../../server/security/secret-box.ts';
import { openDatabase } from '../../server/store/database.ts';
import { createStore, type Store } from '../../server/store/index.ts';

const contract = Contract.load().public;
const clock = manualClock(Date.parse('2026-11-22T10:00:00Z'));
let store: Store;
let server: Server;
let base: string;
let executions = 0;

const TOKENS: Record<string, Omit<Viewer, 'resource'> & { audience: 'base' | 'mcp' }> = {
  'tok-pricing': { userId: 'usr_1', clientId: 'cl_1', grantId: 'gr_1', scopes: ['pricing:read'], audience: 'base' },
  'tok-manage': {
    userId: 'usr_1',
    clientId: 'cl_1',
    grantId: 'gr_2',
    scopes: ['pricing:read', 'domains:manage'],
    audience: 'base',
  },
  'tok-mcp-only': { userId: 'usr_1', clientId: 'cl_1', grantId: 'gr_3', scopes: ['pricing:read'], audience: 'mcp' },
};

beforeAll(async () => {
  store = createStore(await openDatabase({ filename: ':memory:' }), secretBox(randomBytes(32)));
  const viewerJson: HandlerMap[string] = (_req, res) =>
    void res.json({ viewer: res.locals.viewer?.userId ?? null, execution: ++executions });
  const handlers: HandlerMap = {
    searchDomain: viewerJson,
    runBulkDomainOperation: viewerJson,
    probeApi: viewerJson,
    getBatchCatalogue: viewerJson,
    requestToken: (req, res) => void res.json({ got: req.body as unknown }),
    registerOAuthClient: viewerJson,
    getAuthorizePage: (_req, res) => void res.type('html').send('<p>sign in</p>'),
    getDocsPage: (_req, res) => void res.type('html').send('<p>page</p>'),
    listMarketListings: viewerJson,
    // Each entry takes one more call from the caller's bucket, as the batch contract says.
    runBatch: async (req, res) => {
      const taken: boolean[] = [];
      for (const _ of (req.body as { operations: unknown[] }).operations)
        taken.push((await res.locals.publicCalls?.take()) ?? false);
      res.json({ taken });
    },
  };
  const app = express();
  app.use(requestId(), rawBody());
  app.use(
    publicRouter(
      {
        store,
        clock,
        faults: NO_FAULTS,
        keys: { cursors: randomBytes(32), oauth: randomBytes(32) },
        baseUrl: (req) => `http://${req.get('host') ?? ''}`,
        log: () => {},
      },
      {
        contract,
        validateResponses: false,
        handlers,
        accessTokens: {
          verify: async (token) => {
            const t = TOKENS[token];
            return t
              ? {
                  userId: t.userId,
                  clientId: t.clientId,
                  grantId: t.grantId,
                  scopes: t.scopes,
                  resource: t.audience === 'base' ? base : `${base}/mcp`,
                }
              : null;
          },
        },
        selfValidating: { getCheckoutPage: (_req, res) => void res.type('html').send('<p>checkout</p>') },
      },
    ),
  );
  app.use(errorHandler(() => {}));
  server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await store.close();
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

describe('rate limit', () => {
  it('counts every public answer per IP, sets both header generations, and refuses the 61st call with Retry-After', async () => {
    clock.advance(120_000);
    const remaining: number[] = [];
    for (let i = 0; i < 60; i++) {
      const res = await fetch(`${base}/api/batch`);
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-policy')).toBe('"public";q=60;w=60');
      remaining.push(Number(res.headers.get('ratelimit-remaining')));
      expect(res.headers.get('ratelimit')).toBe(
        `"public";r=${remaining.at(-1)};t=${res.headers.get('ratelimit-reset')}`,
      );
    }
    expect(remaining).toEqual(Array.from({ length: 60 }, (_, i) => 59 - i));
    const refused = await fetch(`${base}/api/batch`);
    expect(refused.status).toBe(429);
    expect((await refused.json()) as unknown).toMatchObject({ code: 'rate_limited' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Hosted pages, 401s and 405s are public answers too.
    expect((await fetch(`${base}/checkout?pt=x`)).headers.get('ratelimit-remaining')).toBe('0');
    // A valid token has a bucket of its own.
    const withToken = await post('/api/domain/search', { q: 'coffee' }, { authorization: 'Bearer tok-pricing' });
    expect(withToken.status).toBe(200);
    expect(withToken.headers.get('ratelimit-remaining')).toBe('59');
    clock.advance(60_000);
    const later = await fetch(`${base}/api/batch`);
    expect(later.status).toBe(200);
    expect(later.headers.get('ratelimit-remaining')).toBe('59');
  });
});

describe('batch entries', () => {
  it('take further calls from the same bucket and are refused once it is spent, with the headers following', async () => {
    clock.advance(120_000);
    for (let i = 0; i < 55; i++) expect((await fetch(`${base}/api/batch`)).status).toBe(200);
    const operations = Array.from({ length: 6 }, (_, i) => ({
      id: `e${i}`,
      op: 'search_domain',
      params: { q: 'coffee' },
    }));
    const res = await post('/api/batch', { operations });
    expect(res.status).toBe(200);
    // 55 + the batch request itself = 56 of 60; four entries fit, two do not.
    expect(((await res.json()) as { taken: boolean[] }).taken).toEqual([true, true, true, true, false, false]);
    expect(res.headers.get('ratelimit-remaining')).toBe('0');
  });
});

describe('bearer tokens', () => {
  it('treats a missing token as anonymous where a token is optional and refuses a bad one with invalid_token', async () => {
    clock.advance(120_000);
    const anonymous = await post('/api/domain/search', { q: 'coffee' });
    expect(((await anonymous.json()) as { viewer: unknown }).viewer).toBeNull();
    const valid = await post('/api/domain/search', { q: 'coffee' }, { authorization: 'Bearer tok-pricing' });
    expect(((await valid.json()) as { viewer: unknown }).viewer).toBe('usr_1');
    for (const authorization of ['Bearer nope', 'Bearer', 'Basic dXNlcjpwYXNz']) {
      const bad = await post('/api/domain/search', { q: 'coffee' }, { authorization });
      expect(bad.status).toBe(401);
      expect(((await bad.json()) as { code: string }).code).toBe('invalid_token');
      expect(bad.headers.get('www-authenticate')).toBe(
        `Bearer error="invalid_token", resource_metadata="${base}/.well-known/oauth-protected-resource", scope="pricing:read"`,
      );
      expect(bad.headers.get('ratelimit-policy')).toBe('"public";q=60;w=60');
    }
  });

  it('challenges a probe without a token (no error attribute) and answers one with any valid token', async () => {
    const res = await fetch(`${base}/api`);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { code: string }).code).toBe('missing_credentials');
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource", scope="pricing:read"`,
    );
    expect((await fetch(`${base}/api`, { headers: { authorization: 'Bearer tok-pricing' } })).status).toBe(200);
  });

  it('binds the audience: a token for <base>/mcp is refused on the REST API', async () => {
    const res = await post('/api/domain/search', { q: 'coffee' }, { authorization: 'Bearer tok-mcp-only' });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { code: string }).code).toBe('invalid_token');
  });

  it('needs domains:manage for bulk: 401 without a token, 403 insufficient_scope with too little', async () => {
    const body = { domains: ['a.com'] };
    const none = await post('/api/domains/bulk/lock', body);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toContain('scope="domains:manage"');
    const weak = await post('/api/domains/bulk/lock', body, { authorization: 'Bearer tok-pricing' });
    expect(weak.status).toBe(403);
    expect(((await weak.json()) as { code: string }).code).toBe('insufficient_scope');
    expect(weak.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    const ok = await post('/api/domains/bulk/lock', body, { authorization: 'Bearer tok-manage' });
    expect(ok.status).toBe(200);
  });
});

describe('error shapes', () => {
  it('answers the token endpoint in RFC 6749 form with no-store', async () => {
    const form = (body: string) =>
      fetch(`${base}/api/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
      });
    const unsupported = await form('grant_type=client_credentials');
    expect(unsupported.status).toBe(400);
    expect(unsupported.headers.get('cache-control')).toBe('no-store');
    expect(((await unsupported.json()) as { error: string }).error).toBe('unsupported_grant_type');
    const repeated = await form('grant_type=refresh_token&refresh_token=a&refresh_token=b');
    expect(await repeated.json()).toMatchObject({ error: 'invalid_request' });
    const json = await post('/api/oauth/token', { grant_type: 'refresh_token', refresh_token: 'a' });
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ error: 'invalid_request' });
    const good = await form('grant_type=refresh_token&refresh_token=abc');
    expect(await good.json()).toEqual({ got: { grant_type: 'refresh_token', refresh_token: 'abc' } });
  });

  it('answers registration errors in RFC 7591 form', async () => {
    const res = await post('/api/oauth/register', { client_name: 'Test', redirect_uris: 'not-a-list' });
    expect(res.status).toBe(400);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as { error: string; error_description: string };
    expect(body.error, body.error_description).toBe('invalid_redirect_uri');
  });

  it('shows a browser an HTML error page and a JSON client the Error body', async () => {
    const page = await fetch(`${base}/oauth/authorize?response_type=token`);
    expect(page.status).toBe(400);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('role="alert"');
    // The docs pages' 400 is a shared ($ref) response offering text/html.
    const docs = await fetch(`${base}/docs/Not_A_Slug`);
    expect(docs.status).toBe(400);
    expect(docs.headers.get('content-type')).toMatch(/^text\/html/);
    const json = await fetch(`${base}/oauth/authorize?response_type=token`, {
      headers: { accept: 'application/json' },
    });
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ code: 'validation_error' });
  });

  it('answers a wrong method with 405 and Allow, an unknown path with 404, both counted', async () => {
    const res = await fetch(`${base}/api/v1`, { method: 'PUT' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD'); // x-head
    expect(res.headers.get('ratelimit-policy')).toBe('"public";q=60;w=60');
    const unknown = await fetch(`${base}/not-ours`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ code: 'not_found' });
    expect(unknown.headers.get('ratelimit-policy')).toBe('"public";q=60;w=60');
  });

  it('answers an oversized body with 413 payload_too_large and the rate-limit headers', async () => {
    const res = await fetch(`${base}/api/domain/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ q: 'x'.repeat(1024 * 1024) }),
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ code: 'payload_too_large' });
    expect(res.headers.get('ratelimit-policy')).toBe('"public";q=60;w=60');
  });

  it('points a refused token at /mcp to the path-inserted resource metadata', async () => {
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: 'Bearer nope',
        accept: 'application/json, text/event-stream',
      },
      body: '{}',
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer error="invalid_token", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp", scope="pricing:read"`,
    );
  });
});

describe('Idempotency-Key on public POSTs', () => {
  it('replays the stored answer for the same key and body, refuses another body, and scopes keys per client', async () => {
    clock.advance(120_000);
    const key = `k-${randomBytes(4).toString('hex')}`;
    const first = await post('/api/domain/search', { q: 'coffee', x: 1 }, { 'idempotency-key': key });
    // The body is refused by validation (x is unknown) before anything executes: nothing stored.
    expect(first.status).toBe(400);
    const ok = await post('/api/domain/search', { q: 'coffee' }, { 'idempotency-key': key });
    const okBody = await ok.text();
    expect(ok.status).toBe(200);
    expect(ok.headers.get('idempotent-replayed')).toBeNull();
    const again = await fetch(`${base}/api/domain/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      body: '{ "q" : "coffee" }',
    });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(okBody);
    const other = await post('/api/domain/search', { q: 'tea' }, { 'idempotency-key': key });
    expect(other.status).toBe(409);
    expect(((await other.json()) as { code: string }).code).toBe('conflict');
    // Under a token the key belongs to the grant, so the same key executes afresh.
    const asUser = await post(
      '/api/domain/search',
      { q: 'coffee' },
      { 'idempotency-key': key, authorization: 'Bearer tok-pricing' },
    );
    expect(asUser.headers.get('idempotent-replayed')).toBeNull();
    expect(((await asUser.json()) as { execution: number }).execution).toBeGreaterThan(
      (JSON.parse(okBody) as { execution: number }).execution,
    );
  });
});

describe('integer query parameters', () => {
  it('are decimal digits: exponent, hex, fraction and padded forms are validation errors', async () => {
    clock.advance(120_000);
    for (const limit of ['1e2', '0x10', '2.0', ' 7', '+5', '007']) {
      const res = await fetch(`${base}/api/market/listings?limit=${encodeURIComponent(limit)}`);
      expect(res.status, limit).toBe(400);
      expect(((await res.json()) as { code: string }).code, limit).toBe('validation_error');
    }
    for (const limit of ['5', '100'])
      expect((await fetch(`${base}/api/market/listings?limit=${limit}`)).status, limit).toBe(200);
  });
});
