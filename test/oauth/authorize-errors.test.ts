// The authorization endpoint's error redirects through the public pipeline, with the endpoint
// wired as self-validating (OAuthServer.selfValidating): once client_id and redirect_uri are
// trusted, every other error goes back to the client as a 302 with error, error_description,
// state and iss (RFC 6749 §4.1.2.1, RFC 9207) when the redirect URI stays on the user's device
// (loopback http, a private-use scheme); before that, nothing is ever redirected. An https
// redirect URI, which anyone can register, never gets an automatic redirect before the user has
// signed in (RFC 9700 §4.11.2): the error is a page with a link (probe round 3, L1).
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Contract } from '../../server/contract/index.ts';
import { manualClock } from '../../server/clock.ts';
import { NO_FAULTS } from '../../server/faults.ts';
import { rawBody } from '../../server/http/raw-body.ts';
import { requestId } from '../../server/http/request-id.ts';
import { securityHeaders } from '../../server/http/security-headers.ts';
import { createOAuthServer } from '../../server/oauth/index.ts';
import { publicRouter } from '../../server/public-api/router.ts';
import { secretBox } from '../../server/security/secret-box.ts';
import { openDatabase } from '../../server/store/database.ts';
import { createStore, type Store } from '../../server/store/index.ts';
import { openAuthorize, register, type Registered } from './support.ts';

const REDIRECT = 'http://127.0.0.1:33418/callback';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe('authorization error redirects', () => {
  let store: Store;
  let server: Server;
  let base: string;
  let client: Registered;

  beforeAll(async () => {
    store = createStore(await openDatabase({ filename: ':memory:' }), secretBox(randomBytes(32)));
    const deps = {
      store,
      clock: manualClock(Date.now()),
      faults: NO_FAULTS,
      keys: { cursors: randomBytes(32), oauth: randomBytes(32) },
      baseUrl: () => base,
      log: () => {},
    };
    const oauth = createOAuthServer(deps);
    const app = express();
    const contract = Contract.load().public;
    app.use(requestId(), securityHeaders({ contract }), rawBody());
    app.use(
      publicRouter(deps, {
        contract,
        validateResponses: true,
        handlers: oauth.handlers,
        accessTokens: oauth.accessTokens,
        selfValidating: oauth.selfValidating,
      }),
    );
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    client = await register(base, { client_name: 'Errors', redirect_uris: [REDIRECT] });
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await store?.close();
  });

  const url = (params: Record<string, string | undefined>) => {
    const u = new URL(`${base}/oauth/authorize`);
    const all = {
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      code_challenge: CHALLENGE,
      code_challenge_method: 'S256',
      state: 'st-1',
      ...params,
    };
    for (const [k, v] of Object.entries(all)) if (v !== undefined) u.searchParams.set(k, v);
    return u;
  };

  it.each([
    [{ code_challenge: undefined }, 'invalid_request', 'code_challenge is required (PKCE with S256)'],
    [
      { code_challenge_method: 'plain' },
      'invalid_request',
      'code_challenge_method must be S256 (plain is not accepted)',
    ],
    [{ response_type: 'token' }, 'unsupported_response_type', 'response_type must be code'],
    [{ scope: 'domains:manage' }, 'invalid_scope', 'This client may request only: pricing:read'],
    [{ resource: 'https://elsewhere.example.com' }, 'invalid_target', undefined],
  ])('redirects %j as %s with state and iss', async (params, error, description) => {
    const page = await openAuthorize(url(params));
    expect(page.status).toBe(302);
    const back = new URL(page.location!);
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get('error')).toBe(error);
    if (description) expect(back.searchParams.get('error_description')).toBe(description);
    expect(back.searchParams.get('state')).toBe('st-1');
    expect(back.searchParams.get('iss')).toBe(base);
    expect(page.cookie).toBeUndefined();
  });

  describe('a redirect URI that leaves the device (https): shown with a link, never redirected', () => {
    const PHISH = 'https://phish.example/login';
    const APP = 'com.example.app:/oauth';
    let phish: Registered;
    beforeAll(async () => {
      phish = await register(base, { client_name: 'Totally Legit', redirect_uris: [PHISH, APP] });
    });

    it.each([
      [{ response_type: 'x' }, 'unsupported_response_type', 'response_type'],
      [{ code_challenge: undefined }, 'invalid_request', 'code_challenge'],
      [{ code_challenge_method: 'plain' }, 'invalid_request', 'code_challenge_method'],
      [{ scope: 'bogus' }, 'invalid_scope', 'scope'],
      [{ resource: 'https://elsewhere.example.com' }, 'invalid_target', 'resource'],
    ])('%j: a 400 page naming %s, with a link back, and no Location', async (params, error, param) => {
      const page = await openAuthorize(url({ client_id: phish.client_id, redirect_uri: PHISH, ...params }));
      expect(page.status, page.html).toBe(400);
      expect(page.location).toBeNull();
      expect(page.cookie).toBeUndefined();
      expect(page.html).toContain('<title>This sign-in request cannot be completed</title>');
      expect(page.html).toContain(`<code>${error}</code>`);
      // The link is what the redirect would have carried, written out for the user to follow or not.
      const href = /<a href="([^"]*)"/
        .exec(page.html)?.[1]
        ?.replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c)));
      const back = new URL(href ?? '');
      expect(`${back.origin}${back.pathname}`).toBe(PHISH);
      expect(back.searchParams.get('error')).toBe(error);
      expect(back.searchParams.get('state')).toBe('st-1');
      expect(back.searchParams.get('iss')).toBe(base);
      expect(page.html).toContain('return to phish.example');

      const json = await fetch(url({ client_id: phish.client_id, redirect_uri: PHISH, ...params }), {
        redirect: 'manual',
        headers: { accept: 'application/json' },
      });
      expect(json.status).toBe(400);
      expect(json.headers.get('location')).toBeNull();
      expect(await json.json()).toMatchObject({
        code: 'validation_error',
        message: expect.stringMatching(new RegExp(`^${error}: `)),
        details: [{ path: `/query/${param}` }],
      });
    });

    it('still redirects an error to a private-use scheme (a native app on the device)', async () => {
      const page = await openAuthorize(url({ client_id: phish.client_id, redirect_uri: APP, response_type: 'x' }));
      expect(page.status).toBe(302);
      expect(page.location?.startsWith(`${APP}?error=unsupported_response_type`)).toBe(true);
    });

    it('serves the sign-in page for a valid request: the user sees where approval leads', async () => {
      const page = await openAuthorize(url({ client_id: phish.client_id, redirect_uri: PHISH }));
      expect(page.status).toBe(200);
      expect(page.html).toContain('phish.example');
    });
  });

  it('redirects to the loopback redirect URI with the port that was sent', async () => {
    const page = await openAuthorize(
      url({ redirect_uri: 'http://127.0.0.1:4242/callback', code_challenge: undefined }),
    );
    expect(page.status).toBe(302);
    expect(page.location?.startsWith('http://127.0.0.1:4242/callback?error=invalid_request')).toBe(true);
  });

  it('shows, never redirects, an untrusted request even when PKCE is missing too', async () => {
    for (const params of [
      { redirect_uri: 'https://evil.example.net/cb', code_challenge: undefined },
      { client_id: 'cli_unknown', code_challenge: undefined },
      { client_id: undefined },
      { redirect_uri: undefined },
    ]) {
      const page = await openAuthorize(url(params));
      expect(page.status, JSON.stringify(params)).toBe(400);
      expect(page.location).toBeNull();
      expect(page.html).toContain('<title>This sign-in link is not valid</title>');
    }
  });

  it('serves an accessible sign-in page with the CSRF cookie and no script', async () => {
    const page = await openAuthorize(url({}));
    expect(page.status).toBe(200);
    expect(page.cookie).toMatch(/^ds_csrf=[A-Za-z0-9_-]{16,}$/);
    expect(page.html).toContain('<html lang="en">');
    expect(page.html).toContain('<label for="email">Email</label>');
    expect(page.html).toContain('<label for="password">Password</label>');
    expect(page.html).toContain('Errors wants access to your account');
    expect(page.html).toContain('127.0.0.1:33418');
    expect(page.html).not.toContain('<script');
    expect(page.authRequest).toMatch(/^ar_/);
    expect(page.csrfToken).toBe(page.cookie?.slice('ds_csrf='.length));
  });

  it('escapes what the client registered and forbids framing and caching of the page', async () => {
    const hostile = await register(base, { client_name: '<img src=x onerror=alert(1)>', redirect_uris: [REDIRECT] });
    const res = await fetch(url({ client_id: hostile.client_id }), { headers: { accept: 'text/html' } });
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(html).not.toContain('<img');
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62; wants access');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('cache-control')).toBe('no-store');
  });
});
