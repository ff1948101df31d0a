// The OAuth 2.1 flow and CORS in a real browser: Debian's headless Chromium, driven by
// playwright-core.
//
// - Deny: the sign-in page with JavaScript disabled, the Deny button clicked as a user clicks it
//   (the browser posts the sign-in fields as they are, empty or half-typed): the browser must land
//   on the client's redirect URI with error=access_denied, state and iss (RFC 6749 §4.1.2.1,
//   RFC 9207).
// - A single-page app served from another origin (http://localhost:<port>, the API being on
//   http://127.0.0.1:<port>) discovers the metadata, registers itself, runs PKCE S256 with
//   WebCrypto, exchanges the code, refreshes, and searches with its token: every call a real
//   cross-origin fetch, allowed or refused by Chromium's own CORS checks. From the same page the
//   partner and operator APIs must stay unreadable, and /mcp readable (a loopback origin).
// - A page on a non-loopback origin (elsewhere.example, mapped to 127.0.0.1 by Chromium's host
//   resolver rules) can read the public API but not /mcp.
//
// .ci/run installs Chromium; without it these tests are skipped, loudly.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureSandboxUser } from '../../server/oauth/index.ts';
import { register, SANDBOX_USER } from '../oauth/support.ts';
import { startHarness, type Harness } from '../server/harness.ts';

const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) {
  console.warn(
    `\n*** ${CHROMIUM} is missing: the headless-browser OAuth Deny and cross-origin PKCE tests are SKIPPED (apt-get install -y chromium; .ci/run installs it) ***\n`,
  );
}

const ELSEWHERE = 'elsewhere.example';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  `--host-resolver-rules=MAP ${ELSEWHERE} 127.0.0.1`,
];
/** An unregistered name: its price is the registration price, masked without a token. */
const QUERY = 'zqxcorsprobe.com';

/**
 * The single-page app: plain JavaScript, no library. `/` starts the flow, `/callback` finishes
 * it; `/probe` only tries the calls a page of any origin may or may not make. Each page leaves
 * what it saw in `window.__result`.
 */
const SPA_SCRIPT = `
const API = document.documentElement.dataset.api;
const done = (result) => { window.__result = result; document.title = 'done'; };
const fail = (err) => done({ error: String(err && err.stack || err) });
const b64url = (bytes) => btoa(String.fromCharCode(...bytes)).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
const random = (n) => b64url(crypto.getRandomValues(new Uint8Array(n)));
/** A cross-origin call: what the page could read, or 'blocked' when the browser refused it. */
async function call(url, init) {
  try {
    const res = await fetch(url, init);
    const text = await res.text();
    let body;
    try { body = JSON.parse(text); } catch { body = text; }
    return { status: res.status, body, requestId: res.headers.get('x-request-id'), remaining: res.headers.get('ratelimit-remaining'), wwwAuthenticate: res.headers.get('www-authenticate') };
  } catch (err) {
    return 'blocked';
  }
}
const json = (body, headers = {}) => ({ method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
const search = (token) => call(API + '/api/domain/search', json({ q: '${QUERY}' }, token ? { authorization: 'Bearer ' + token } : {}));
const mcp = () => call(API + '/mcp', json({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'spa', version: '1.0.0' } } }, { accept: 'application/json, text/event-stream' }));

async function start() {
  const discovered = await call(API + '/.well-known/oauth-authorization-server');
  const meta = discovered.body;
  const redirectUri = location.origin + '/callback';
  const registered = await call(meta.registration_endpoint, json({ client_name: 'Cross-origin SPA', redirect_uris: [redirectUri], scope: 'pricing:read' }));
  const verifier = random(32);
  const challenge = b64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
  const state = random(16);
  sessionStorage.setItem('flow', JSON.stringify({ meta, client: registered.body, registeredStatus: registered.status, verifier, state, redirectUri }));
  const url = new URL(meta.authorization_endpoint);
  const params = { response_type: 'code', client_id: registered.body.client_id, redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: 'S256', state, scope: 'pricing:read' };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  location.assign(url.href);
}

async function callback() {
  const flow = JSON.parse(sessionStorage.getItem('flow'));
  const back = new URLSearchParams(location.search);
  const form = (fields) => ({ method: 'POST', body: new URLSearchParams(fields) });
  const exchanged = await call(flow.meta.token_endpoint, form({ grant_type: 'authorization_code', code: back.get('code'), redirect_uri: flow.redirectUri, client_id: flow.client.client_id, code_verifier: flow.verifier }));
  const refreshed = await call(flow.meta.token_endpoint, form({ grant_type: 'refresh_token', refresh_token: exchanged.body.refresh_token, client_id: flow.client.client_id }));
  const masked = await search();
  const real = await search(refreshed.body.access_token);
  // Presenting the rotated refresh token again revokes the whole grant, its access token too.
  const reused = await call(flow.meta.token_endpoint, form({ grant_type: 'refresh_token', refresh_token: exchanged.body.refresh_token, client_id: flow.client.client_id }));
  done({
    registeredStatus: flow.registeredStatus,
    stateEchoed: back.get('state') === flow.state,
    iss: back.get('iss'),
    issuer: flow.meta.issuer,
    exchanged,
    refreshed,
    masked,
    real,
    reused,
    afterReuse: await search(refreshed.body.access_token),
    mcp: await mcp(),
    partner: await call(API + '/api/partner/v1/availability?domain=${QUERY}'),
    partnerSigned: await call(API + '/api/partner/v1/availability?domain=${QUERY}', { headers: { 'x-service-key-id': 'pk_test_x', 'x-service-signature': 'x' } }),
    admin: await call(API + '/api/admin/v1/credentials', json({ environment: 'sandbox', scopes: ['search'] }, { authorization: 'Bearer x' })),
  });
}

async function probe() {
  done({
    search: await search(),
    token: await call(API + '/api/oauth/token', { method: 'POST', body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'rt_unknown' }) }),
    metadata: await call(API + '/.well-known/oauth-authorization-server'),
    mcp: await mcp(),
  });
}

({ '/': start, '/callback': callback, '/probe': probe })[location.pathname]().catch(fail);
`;

describe.skipIf(!HAVE_CHROMIUM)('OAuth and CORS in headless Chromium', () => {
  let h: Harness;
  let site: Server;
  let sitePort: number;
  let browser: Browser;
  let noScript: BrowserContext;
  let withScript: BrowserContext;

  beforeAll(async () => {
    h = await startHarness({ inventorySize: 20, dispatch: false });
    await ensureSandboxUser(h.store, SANDBOX_USER);
    // The client's own site, on another origin than the API.
    site = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(
        `<!doctype html><html lang="en" data-api="${h.baseUrl}"><title>SPA</title><h1>Client app</h1><script>${SPA_SCRIPT}</script></html>`,
      );
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    sitePort = (site.address() as AddressInfo).port;
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    noScript = await browser.newContext({ javaScriptEnabled: false });
    withScript = await browser.newContext({ javaScriptEnabled: true });
  });
  afterAll(async () => {
    await noScript?.close();
    await withScript?.close();
    await browser?.close();
    if (site) await new Promise<void>((resolve) => site.close(() => resolve()));
    await h?.close();
  });
  // A fresh window of the public rate limit (60 per 60 s per address) for every test.
  beforeEach(() => h.clock.advance(61_000));

  describe('Deny on the sign-in page, JavaScript disabled', () => {
    const callbackUrl = () => `http://localhost:${sitePort}/callback`;

    async function openSignIn(): Promise<{ page: Page; state: string }> {
      const client = await register(h.baseUrl, { client_name: 'Deny Test Client', redirect_uris: [callbackUrl()] });
      const verifier = randomBytes(32).toString('base64url');
      const state = randomBytes(12).toString('base64url');
      const url = new URL(`${h.baseUrl}/oauth/authorize`);
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: client.client_id,
        redirect_uri: callbackUrl(),
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
        state,
      }).toString();
      const page = await noScript.newPage();
      const response = await page.goto(url.href);
      expect(response?.status()).toBe(200);
      expect(await page.getByRole('button', { name: 'Deny' }).count()).toBe(1);
      return { page, state };
    }

    async function clickDeny(page: Page): Promise<URL> {
      await Promise.all([page.waitForURL(`${callbackUrl()}?**`), page.getByRole('button', { name: 'Deny' }).click()]);
      return new URL(page.url());
    }

    it('sends the browser back with error=access_denied, state and iss when nothing was typed', async () => {
      const { page, state } = await openSignIn();
      const back = await clickDeny(page);
      expect(Object.fromEntries(back.searchParams)).toEqual({
        error: 'access_denied',
        error_description: expect.any(String),
        state,
        iss: h.baseUrl,
      });
      await page.close();
    });

    it('does the same when the user had half-typed an email and a password', async () => {
      const { page, state } = await openSignIn();
      await page.getByLabel('Email').fill('ada@');
      await page.getByLabel('Password').fill('half');
      const back = await clickDeny(page);
      expect(Object.fromEntries(back.searchParams)).toEqual({
        error: 'access_denied',
        error_description: expect.any(String),
        state,
        iss: h.baseUrl,
      });
      await page.close();
    });
  });

  describe('a single-page app on another origin', () => {
    const result = async (page: Page): Promise<Record<string, unknown>> => {
      await page.waitForFunction(() => document.title === 'done', undefined, { timeout: 20_000 });
      const out = (await page.evaluate(() => (window as unknown as { __result: unknown }).__result)) as Record<
        string,
        unknown
      >;
      expect(out.error, String(out.error)).toBeUndefined();
      return out;
    };

    it('registers, runs PKCE S256, exchanges the code, refreshes and searches with its token; the partner and operator APIs stay unreadable', async () => {
      const spa = `http://localhost:${sitePort}`;
      expect(new URL(spa).origin).not.toBe(new URL(h.baseUrl).origin);
      const page = await withScript.newPage();
      await page.goto(`${spa}/`);
      // The SPA sends the browser to the sign-in page of the API's origin; the user approves.
      await page.waitForURL(`${h.baseUrl}/oauth/authorize?**`);
      await page.getByLabel('Email').fill(SANDBOX_USER.email);
      await page.getByLabel('Password').fill(SANDBOX_USER.password);
      await Promise.all([
        page.waitForURL(`${spa}/callback?**`),
        page.getByRole('button', { name: 'Sign in and approve' }).click(),
      ]);
      const out = await result(page);

      expect(out.registeredStatus).toBe(201);
      expect(out.stateEchoed).toBe(true);
      expect(out.iss).toBe(out.issuer);
      const exchanged = out.exchanged as { status: number; body: Record<string, unknown> };
      expect(exchanged.status, JSON.stringify(exchanged)).toBe(200);
      expect(exchanged.body).toMatchObject({ token_type: 'Bearer', scope: 'pricing:read' });
      const refreshed = out.refreshed as { status: number; body: Record<string, unknown> };
      expect(refreshed.status, JSON.stringify(refreshed)).toBe(200);
      expect(refreshed.body.refresh_token).not.toBe(exchanged.body.refresh_token);
      // The rotated refresh token is refused, and the error is readable across origins.
      expect(out.reused).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });

      type Search = {
        status: number;
        body: { result: { price: number | null; price_masked: boolean } };
        requestId: string | null;
        remaining: string | null;
      };
      const masked = out.masked as Search;
      const real = out.real as Search;
      expect(masked.status).toBe(200);
      expect(masked.body.result).toMatchObject({ price: null, price_masked: true });
      expect(real.status).toBe(200);
      expect(real.body.result.price_masked).toBe(false);
      expect(real.body.result.price).toEqual(expect.any(Number));
      // Exposed response headers are readable by the page.
      expect(real.requestId).toMatch(/^req_/);
      expect(Number(real.remaining)).toBeGreaterThanOrEqual(0);
      // After the reuse the grant is revoked: the 401 and its WWW-Authenticate are readable.
      const afterReuse = out.afterReuse as { status: number; body: { code: string }; wwwAuthenticate: string | null };
      expect(afterReuse.status).toBe(401);
      expect(afterReuse.body.code).toBe('invalid_token');
      expect(afterReuse.wwwAuthenticate).toContain('resource_metadata=');

      // /mcp allows loopback origins; the partner and operator APIs allow none.
      expect(out.mcp).toMatchObject({ status: 200 });
      expect(out.partner).toBe('blocked');
      expect(out.partnerSigned).toBe('blocked');
      expect(out.admin).toBe('blocked');
      await page.close();
    });

    it('a page on a non-loopback origin can read the public API, the token endpoint and the metadata, but not /mcp', async () => {
      const page = await withScript.newPage();
      await page.goto(`http://${ELSEWHERE}:${sitePort}/probe`);
      const out = await result(page);
      expect(out.search).toMatchObject({ status: 200, body: { result: { price_masked: true } } });
      expect(out.token).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      expect(out.metadata).toMatchObject({ status: 200, body: { issuer: h.baseUrl } });
      expect(out.mcp).toBe('blocked');
      await page.close();
    });
  });
});
