// The OAuth 2.1 flow end to end against a real server, with oauth4webapi as the client: it
// discovers the metadata, and checks state, iss and the token responses itself. A browser is
// played by fetch (GET the page, POST the form). Time is the harness's manual clock, so code
// and token lifetimes are tested exactly; each test starts a fresh rate-limit window.
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOAuthServer, ensureSandboxUser } from '../../server/oauth/index.ts';
import type { Viewer } from '../../server/public-api/context.ts';
import { derivedKey } from '../../server/security/secret-box.ts';
import { NO_FAULTS } from '../../server/faults.ts';
import { startHarness, type Harness } from '../server/harness.ts';
import { databases } from '../server/support/http.ts';
import {
  approve,
  openAuthorize,
  register,
  SANDBOX_USER,
  submitForm,
  tokenRequest,
  type Registered,
} from './support.ts';

const insecure = { [oauth.allowInsecureRequests]: true };
const REDIRECT = 'http://127.0.0.1:33418/callback';

describe.each(databases())('OAuth 2.1 flow ($name)', ({ databaseUrl }) => {
  let h: Harness;
  let base: string;
  let as: oauth.AuthorizationServer;
  let client: Registered;
  let verify: (token: string) => Promise<Viewer | null>;

  beforeAll(async () => {
    h = await startHarness({ databaseUrl, inventorySize: 20, dispatch: false });
    base = h.baseUrl;
    await ensureSandboxUser(h.store, SANDBOX_USER);
    const server = createOAuthServer({
      store: h.store,
      clock: h.clock,
      faults: NO_FAULTS,
      keys: { cursors: Buffer.alloc(32), oauth: derivedKey(h.masterKey, 'oauth') },
      baseUrl: () => base,
      log: () => {},
    });
    verify = (token) => server.accessTokens.verify(token);
    as = await oauth.processDiscoveryResponse(
      new URL(base),
      await oauth.discoveryRequest(new URL(base), { algorithm: 'oauth2', ...insecure }),
    );
    client = await register(base, {
      client_name: 'Flow Test Client',
      redirect_uris: [REDIRECT],
      scope: 'pricing:read domains:manage',
    });
  });
  afterAll(async () => {
    await h?.close();
  });
  // A fresh window of the public rate limit (60 per 60 s per address) for every test.
  beforeEach(() => h.clock.advance(61_000));

  const asClient = (c: Registered = client): oauth.Client => ({ client_id: c.client_id });

  async function authorizationUrl(params: Record<string, string> = {}, c: Registered = client) {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    const redirectUri = params.redirect_uri ?? REDIRECT;
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: c.client_id,
      redirect_uri: redirectUri,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      ...params,
    })) {
      url.searchParams.set(k, v);
    }
    return { url, verifier, state, redirectUri };
  }

  /** Authorizes and returns the validated callback parameters (state and iss checked by oauth4webapi). */
  async function authorize(params: Record<string, string> = {}, c: Registered = client) {
    const started = await authorizationUrl(params, c);
    const location = await approve(base, started.url);
    const callback = oauth.validateAuthResponse(as, asClient(c), new URL(location), started.state);
    return { ...started, callback, location };
  }

  async function exchange(
    flow: Awaited<ReturnType<typeof authorize>>,
    verifier = flow.verifier,
    c: Registered = client,
  ) {
    const res = await oauth.authorizationCodeGrantRequest(
      as,
      asClient(c),
      oauth.None(),
      flow.callback,
      flow.redirectUri,
      verifier,
      insecure,
    );
    return oauth.processAuthorizationCodeResponse(as, asClient(c), res);
  }

  async function refresh(refreshToken: string) {
    const res = await oauth.refreshTokenGrantRequest(as, asClient(), oauth.None(), refreshToken, insecure);
    return oauth.processRefreshTokenResponse(as, asClient(), res);
  }

  /** The OAuth error code a rejected promise of oauth4webapi carries. */
  async function oauthError(promise: Promise<unknown>): Promise<string | undefined> {
    try {
      await promise;
      return undefined;
    } catch (err) {
      if (err instanceof oauth.ResponseBodyError) return err.error;
      throw err;
    }
  }

  /** Whether the API accepts the token (GET /api answers 401 to a token it refuses). */
  const apiAccepts = async (token: string) =>
    (await fetch(`${base}/api`, { headers: { authorization: `Bearer ${token}` } })).status !== 401;

  it('publishes the metadata oauth4webapi discovered, with absolute URLs of this server', async () => {
    expect(as).toMatchObject({
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/api/oauth/token`,
      registration_endpoint: `${base}/api/oauth/register`,
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      scopes_supported: ['pricing:read', 'domains:manage'],
      authorization_response_iss_parameter_supported: true,
    });
    // RFC 8414 is the one discovery document: OpenID discovery and a key set are not served.
    const oidc = await oauth.discoveryRequest(new URL(base), { algorithm: 'oidc', ...insecure });
    expect(oidc.status).toBe(404);
    expect((await fetch(`${base}/.well-known/jwks.json`)).status).toBe(404);
    expect(await (await fetch(`${base}/.well-known/oauth-protected-resource`)).json()).toMatchObject({
      resource: base,
      authorization_servers: [base],
      bearer_methods_supported: ['header'],
    });
    expect(await (await fetch(`${base}/.well-known/oauth-protected-resource/mcp`)).json()).toMatchObject({
      resource: `${base}/mcp`,
      authorization_servers: [base],
      scopes_supported: ['pricing:read'],
    });
  });

  it('registers public clients (201, no-store, metadata echoed) and refuses others in the RFC 7591 shape', async () => {
    const res = await fetch(`${base}/api/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Echo',
        redirect_uris: ['com.example.app:/cb', 'https://a.example.net/cb'],
        software_id: 'sw-1',
        extra: true,
      }),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      client_name: 'Echo',
      redirect_uris: ['com.example.app:/cb', 'https://a.example.net/cb'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      scope: 'pricing:read',
      software_id: 'sw-1',
    });
    expect(body.client_id).toMatch(/^cli_/);
    expect(body).not.toHaveProperty('client_secret');
    expect(body).not.toHaveProperty('extra');
    expect(Math.abs(Number(body.client_id_issued_at) - Math.floor(h.clock.now() / 1000))).toBeLessThanOrEqual(1);

    const refused = await fetch(`${base}/api/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Web', redirect_uris: ['http://app.example.net/callback'] }),
    });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('cache-control')).toBe('no-store');
    expect(await refused.json()).toEqual({
      error: 'invalid_redirect_uri',
      error_description: 'http redirect URIs are allowed only on loopback hosts: http://app.example.net/callback',
    });

    const secret = await fetch(`${base}/api/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Confidential',
        redirect_uris: ['https://a.example.net/cb'],
        token_endpoint_auth_method: 'client_secret_basic',
      }),
    });
    expect(secret.status).toBe(400);
    expect(((await secret.json()) as { error: string }).error).toBe('invalid_client_metadata');
  });

  it('runs the whole flow: consent, code with state and iss, PKCE exchange, a usable token', async () => {
    const flow = await authorize({ scope: 'pricing:read' });
    const redirect = new URL(flow.location);
    expect(`${redirect.origin}${redirect.pathname}`).toBe(REDIRECT);
    expect(redirect.searchParams.get('iss')).toBe(base);
    expect(redirect.searchParams.get('state')).toBe(flow.state);
    expect(redirect.searchParams.get('code')).toMatch(/^ac_/);

    const tokens = await exchange(flow);
    expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 1800, scope: 'pricing:read' });
    expect(tokens.refresh_token).toMatch(/^rt_/);
    const viewer = await verify(tokens.access_token);
    expect(viewer).toMatchObject({ clientId: client.client_id, scopes: ['pricing:read'], resource: base });
    expect(viewer?.userId).toBe((await ensureSandboxUser(h.store, SANDBOX_USER)).userId);
    expect(await apiAccepts(tokens.access_token)).toBe(true);

    // A callback whose iss is not the issuer's (a mix-up) is refused by the client.
    const mixedUp = new URL(flow.location);
    mixedUp.searchParams.set('iss', 'https://attacker.example.com');
    expect(() => oauth.validateAuthResponse(as, asClient(), mixedUp, flow.state)).toThrow(/iss/);
  });

  it('sends the token response with Cache-Control: no-store', async () => {
    const flow = await authorize();
    const res = await tokenRequest(base, {
      grant_type: 'authorization_code',
      code: flow.callback.get('code')!,
      redirect_uri: REDIRECT,
      client_id: client.client_id,
      code_verifier: flow.verifier,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('refuses a wrong code_verifier without consuming the code', async () => {
    const flow = await authorize();
    expect(await oauthError(exchange(flow, oauth.generateRandomCodeVerifier()))).toBe('invalid_grant');
    const tokens = await exchange(flow);
    expect(await verify(tokens.access_token)).not.toBeNull();
  });

  it('lets a code expire after 60 seconds', async () => {
    const flow = await authorize();
    h.clock.advance(60_000);
    const res = await tokenRequest(base, {
      grant_type: 'authorization_code',
      code: flow.callback.get('code')!,
      redirect_uri: REDIRECT,
      client_id: client.client_id,
      code_verifier: flow.verifier,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: 'invalid_grant',
      error_description: 'The authorization code has expired (codes live 60 seconds); start the authorization again',
    });
  });

  it('answers a valid replay of a code with invalid_grant and revokes the tokens issued from it', async () => {
    const flow = await authorize();
    const tokens = await exchange(flow);
    expect(await apiAccepts(tokens.access_token)).toBe(true);
    expect(await oauthError(exchange(flow))).toBe('invalid_grant');
    expect(await verify(tokens.access_token)).toBeNull();
    expect(await apiAccepts(tokens.access_token)).toBe(false);
    expect(await oauthError(refresh(tokens.refresh_token!))).toBe('invalid_grant');
  });

  it('revokes nothing on an invalid replay (wrong verifier, wrong redirect_uri or another client)', async () => {
    const other = await register(base, { client_name: 'Other', redirect_uris: [REDIRECT] });
    const flow = await authorize();
    const tokens = await exchange(flow);
    expect(await oauthError(exchange(flow, oauth.generateRandomCodeVerifier()))).toBe('invalid_grant');
    const code = flow.callback.get('code')!;
    const wrongRedirect = await tokenRequest(base, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: 'http://127.0.0.1:1/callback',
      client_id: client.client_id,
      code_verifier: flow.verifier,
    });
    expect(((await wrongRedirect.json()) as { error: string }).error).toBe('invalid_grant');
    const otherClient = await tokenRequest(base, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: other.client_id,
      code_verifier: flow.verifier,
    });
    expect(((await otherClient.json()) as { error: string }).error).toBe('invalid_grant');
    expect(await verify(tokens.access_token)).not.toBeNull();
    expect((await refresh(tokens.refresh_token!)).access_token).toMatch(/^at_/);
  });

  it('rotates refresh tokens; presenting a rotated one revokes the whole grant', async () => {
    const first = await exchange(await authorize());
    const second = await refresh(first.refresh_token!);
    expect(second).toMatchObject({ token_type: 'bearer', expires_in: 1800, scope: 'pricing:read' });
    expect(second.refresh_token).not.toBe(first.refresh_token);
    const third = await refresh(second.refresh_token!);
    expect(await verify(third.access_token)).not.toBeNull();
    expect(await verify(first.access_token)).not.toBeNull();

    expect(await oauthError(refresh(first.refresh_token!))).toBe('invalid_grant');
    for (const t of [first.access_token, second.access_token, third.access_token]) expect(await verify(t)).toBeNull();
    expect(await apiAccepts(third.access_token)).toBe(false);
    expect(await oauthError(refresh(third.refresh_token!))).toBe('invalid_grant');
  });

  it('lets exactly one of N parallel refreshes with the same token win; the others revoke the grant', async () => {
    const tokens = await exchange(await authorize());
    const N = 8;
    const answers = await Promise.all(
      Array.from({ length: N }, () =>
        tokenRequest(base, {
          grant_type: 'refresh_token',
          refresh_token: tokens.refresh_token!,
          client_id: client.client_id,
        }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, string> })),
      ),
    );
    const won = answers.filter((a) => a.status === 200);
    expect(won).toHaveLength(1);
    for (const lost of answers.filter((a) => a.status !== 200))
      expect(lost).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const winner = won[0]!.body;
    expect(await verify(winner.access_token!)).toBeNull();
    expect(await verify(tokens.access_token)).toBeNull();
    const after = await tokenRequest(base, { grant_type: 'refresh_token', refresh_token: winner.refresh_token! });
    expect(((await after.json()) as { error: string }).error).toBe('invalid_grant');
  });

  it('counts the public rate limit per grant: refreshing, consenting again or holding several tokens never multiplies it', async () => {
    // The documented budget (x-rate-limit-classes "public": 60 per 60 s), read from the headers.
    const call = (token: string) => fetch(`${base}/api`, { headers: { authorization: `Bearer ${token}` } });
    const first = await exchange(await authorize());
    const opened = await call(first.access_token);
    expect(opened.headers.get('ratelimit-policy')).toBe('"public";q=60;w=60');
    const quota = 60;
    for (let i = 1; i < quota; i++) expect((await call(first.access_token)).status).toBe(200);
    expect((await call(first.access_token)).status).toBe(429);
    // The same grant's next token (the refresh answers per address, and the address has calls left).
    const refreshed = await refresh(first.refresh_token!);
    expect(await verify(refreshed.access_token)).not.toBeNull();
    const afterRefresh = await call(refreshed.access_token);
    expect(afterRefresh.status).toBe(429);
    expect(afterRefresh.headers.get('ratelimit-remaining')).toBe('0');
    // The same user consenting to the same client again: a new grant row, the same budget.
    const again = await exchange(await authorize());
    expect((await call(again.access_token)).status).toBe(429);
    // Another client of the same user has its own window.
    const other = await register(base, { client_name: 'Another app', redirect_uris: [REDIRECT] });
    const otherTokens = await exchange(await authorize({}, other), undefined, other);
    expect((await call(otherTokens.access_token)).status).toBe(200);
  });

  it('narrows scopes on refresh but never widens them', async () => {
    const tokens = await exchange(await authorize({ scope: 'pricing:read domains:manage' }));
    expect(tokens.scope).toBe('pricing:read domains:manage');
    const narrowed = await tokenRequest(base, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
      scope: 'domains:manage',
    });
    const body = (await narrowed.json()) as { scope: string; access_token: string; refresh_token: string };
    expect(body.scope).toBe('domains:manage');
    expect((await verify(body.access_token))?.scopes).toEqual(['domains:manage']);
    // The refresh token still carries the whole grant.
    const back = (await (
      await tokenRequest(base, { grant_type: 'refresh_token', refresh_token: body.refresh_token })
    ).json()) as { scope: string };
    expect(back.scope).toBe('pricing:read domains:manage');

    const narrowClient = await register(base, { client_name: 'Narrow', redirect_uris: [REDIRECT] });
    const small = await exchange(await authorize({}, narrowClient), undefined, narrowClient);
    const wider = await tokenRequest(base, {
      grant_type: 'refresh_token',
      refresh_token: small.refresh_token!,
      scope: 'pricing:read domains:manage',
    });
    expect(((await wider.json()) as { error: string }).error).toBe('invalid_scope');
  });

  it('expires access tokens after 30 minutes and refresh tokens after 30 days', async () => {
    const tokens = await exchange(await authorize());
    h.clock.advance(1800 * 1000 - 1);
    expect(await verify(tokens.access_token)).not.toBeNull();
    h.clock.advance(1);
    expect(await verify(tokens.access_token)).toBeNull();
    expect(await apiAccepts(tokens.access_token)).toBe(false);
    const fresh = await refresh(tokens.refresh_token!);
    h.clock.advance(30 * 24 * 3600 * 1000);
    expect(await oauthError(refresh(fresh.refresh_token!))).toBe('invalid_grant');
  });

  it('binds the audience to the RFC 8707 resource', async () => {
    const flow = await authorize({ resource: `${base}/mcp` });
    const tokens = await exchange(flow);
    expect((await verify(tokens.access_token))?.resource).toBe(`${base}/mcp`);
    expect(await apiAccepts(tokens.access_token)).toBe(false);
    const mismatch = await tokenRequest(base, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
      resource: base,
    });
    expect(((await mismatch.json()) as { error: string }).error).toBe('invalid_target');
  });

  it('matches loopback redirect URIs on any port, and binds the code to the one sent', async () => {
    const flow = await authorize({ redirect_uri: 'http://127.0.0.1:5555/callback' });
    const code = flow.callback.get('code')!;
    const registered = await tokenRequest(base, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: client.client_id,
      code_verifier: flow.verifier,
    });
    expect(((await registered.json()) as { error: string }).error).toBe('invalid_grant');
    expect((await exchange(flow)).access_token).toMatch(/^at_/);
  });

  it('shows an unregistered redirect URI or an unknown client to the user, never redirecting', async () => {
    const { url } = await authorizationUrl({ redirect_uri: 'https://evil.example.net/cb' });
    const page = await openAuthorize(url);
    expect(page.status).toBe(400);
    expect(page.location).toBeNull();
    expect(page.html).toContain('is not registered for client');
    const json = await fetch(url, { redirect: 'manual', headers: { accept: 'application/json' } });
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({
      code: 'invalid_redirect_uri',
      message: `redirect_uri "https://evil.example.net/cb" is not registered for client ${client.client_id}`,
    });

    const unknown = await authorizationUrl({ client_id: 'cli_unknown' });
    const unknownPage = await openAuthorize(unknown.url);
    expect(unknownPage.status).toBe(400);
    expect(unknownPage.location).toBeNull();
  });

  it('refuses a form without the CSRF cookie, with another cookie, or with a tampered auth_request, issuing nothing', async () => {
    const { url } = await authorizationUrl();
    const page = await openAuthorize(url);
    expect(page.cookie).toMatch(/^ds_csrf=/);
    const fields = { email: SANDBOX_USER.email, password: SANDBOX_USER.password, decision: 'approve' };
    for (const cookie of ['', 'ds_csrf=another-value-0123456789']) {
      const answer = await submitForm(base, page, fields, cookie);
      expect(answer.status).toBe(400);
      expect(answer.location).toBeNull();
      expect(answer.html).toContain('start the sign-in again');
    }
    const tampered = await submitForm(base, { ...page, authRequest: `${page.authRequest}x` }, fields);
    expect(tampered.status).toBe(400);
    expect(tampered.location).toBeNull();
    // The untouched form still works.
    expect((await submitForm(base, page, fields)).status).toBe(303);
  });

  it('shows the page again on a wrong password, then signs in with the right one', async () => {
    const { url, state } = await authorizationUrl();
    const page = await openAuthorize(url);
    const wrong = await submitForm(base, page, {
      email: SANDBOX_USER.email,
      password: 'not-the-password',
      decision: 'approve',
    });
    expect(wrong.status).toBe(200);
    expect(wrong.location).toBeNull();
    expect(wrong.html).toContain('role="alert"');
    expect(wrong.html).toContain('Wrong email or password.');
    const unknownUser = await submitForm(base, page, {
      email: 'nobody@example.com',
      password: SANDBOX_USER.password,
      decision: 'approve',
    });
    expect(unknownUser.html).toContain('Wrong email or password.');
    const right = await submitForm(base, page, {
      email: SANDBOX_USER.email.toUpperCase(),
      password: SANDBOX_USER.password,
      decision: 'approve',
    });
    expect(right.status).toBe(303);
    expect(new URL(right.location!).searchParams.get('state')).toBe(state);
  });

  it('sends a denial back as access_denied with state and iss', async () => {
    const { url, state } = await authorizationUrl();
    const page = await openAuthorize(url);
    const denied = await submitForm(base, page, { decision: 'deny' });
    expect(denied.status).toBe(303);
    const back = new URL(denied.location!);
    expect(Object.fromEntries(back.searchParams)).toMatchObject({ error: 'access_denied', state, iss: base });
    expect(back.searchParams.has('code')).toBe(false);
  });

  // One decision per authorization request (probe round 3, I9): the signed form is used up by
  // "Deny" or by a signed-in "approve", so it can neither be approved after a denial nor give
  // two codes; a failed sign-in does not use it up.
  it('takes one decision per authorization request: no approval after a denial, no second code', async () => {
    const approveFields = { email: SANDBOX_USER.email, password: SANDBOX_USER.password, decision: 'approve' };
    const expectUsed = (answer: Awaited<ReturnType<typeof submitForm>>, what: string) => {
      expect(answer.status, `${what}: ${answer.html}`).toBe(400);
      expect(answer.location, what).toBeNull();
      expect(answer.html).toContain('already answered');
    };

    const denied = await openAuthorize((await authorizationUrl()).url);
    expect((await submitForm(base, denied, { decision: 'deny' })).status).toBe(303);
    expectUsed(await submitForm(base, denied, approveFields), 'approve after deny');
    expectUsed(await submitForm(base, denied, { decision: 'deny' }), 'deny after deny');

    const approved = await openAuthorize((await authorizationUrl()).url);
    expect((await submitForm(base, approved, { ...approveFields, password: 'wrong-password' })).status).toBe(200);
    const first = await submitForm(base, approved, approveFields);
    expect(first.status, first.html).toBe(303);
    expect(new URL(first.location!).searchParams.has('code')).toBe(true);
    expectUsed(await submitForm(base, approved, approveFields), 'approve twice');
    expectUsed(await submitForm(base, approved, { decision: 'deny' }), 'deny after approve');

    // As JSON too (Accept: application/json): the Error body, at /body/auth_request.
    const json = await fetch(`${base}/oauth/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        cookie: approved.cookie ?? '',
      },
      body: new URLSearchParams({
        auth_request: approved.authRequest ?? '',
        csrf_token: approved.csrfToken ?? '',
        ...approveFields,
      }),
    });
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({
      code: 'validation_error',
      details: [{ path: '/body/auth_request', message: 'was already approved or denied' }],
    });

    // A second page for the same client and user is a new request, with its own decision.
    const another = await openAuthorize((await authorizationUrl()).url);
    expect((await submitForm(base, another, approveFields)).status).toBe(303);
  });

  it('sends a denial back whatever the sign-in fields hold, as a browser posts them (empty or half-typed)', async () => {
    for (const typed of [
      { email: '', password: '' },
      { email: 'ada@', password: '' },
      { email: 'not an address', password: 'x' },
    ]) {
      const { url, state } = await authorizationUrl();
      const page = await openAuthorize(url);
      const denied = await submitForm(base, page, { ...typed, decision: 'deny' });
      expect(denied.status, `${JSON.stringify(typed)}: ${denied.html}`).toBe(303);
      const back = new URL(denied.location!);
      expect(Object.fromEntries(back.searchParams)).toEqual({
        error: 'access_denied',
        error_description: expect.any(String),
        state,
        iss: base,
      });
    }
  });

  it('shows the page again when approve is sent with the sign-in fields empty or malformed', async () => {
    const { url } = await authorizationUrl();
    const page = await openAuthorize(url);
    for (const typed of [
      { email: '', password: '' },
      { email: 'ada@', password: 'x' },
    ]) {
      const again = await submitForm(base, page, { ...typed, decision: 'approve' });
      expect(again.status, again.html).toBe(200);
      expect(again.location).toBeNull();
      expect(again.html).toContain('role="alert"');
    }
  });

  it('refuses the form after 10 minutes', async () => {
    const { url } = await authorizationUrl();
    const page = await openAuthorize(url);
    h.clock.advance(10 * 60 * 1000);
    const late = await submitForm(base, page, {
      email: SANDBOX_USER.email,
      password: SANDBOX_USER.password,
      decision: 'approve',
    });
    expect(late.status).toBe(400);
    expect(late.location).toBeNull();
  });

  it('answers token endpoint misuse with RFC 6749 errors', async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ grant_type: 'client_credentials' }, 'unsupported_grant_type'],
      [{ grant_type: 'refresh_token' }, 'invalid_request'],
      [{ grant_type: 'refresh_token', refresh_token: 'rt_unknown' }, 'invalid_grant'],
      [{ grant_type: 'refresh_token', refresh_token: 'rt_unknown', client_id: 'cli_unknown' }, 'invalid_client'],
      [
        {
          grant_type: 'authorization_code',
          code: 'ac_x',
          redirect_uri: REDIRECT,
          client_id: 'cli_unknown',
          code_verifier: oauth.generateRandomCodeVerifier(),
        },
        'invalid_client',
      ],
      [
        {
          grant_type: 'authorization_code',
          code: 'ac_x',
          redirect_uri: REDIRECT,
          client_id: client.client_id,
          code_verifier: oauth.generateRandomCodeVerifier(),
        },
        'invalid_grant',
      ],
    ];
    for (const [fields, error] of cases) {
      const res = await tokenRequest(base, fields);
      expect(res.status, JSON.stringify(fields)).toBe(400);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const body = (await res.json()) as { error: string; error_description: string };
      expect(body.error, JSON.stringify(fields)).toBe(error);
      expect(body.error_description.length).toBeGreaterThan(10);
    }
  });
});
