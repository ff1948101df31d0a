// The metadata documents advertise nothing the server refuses: every value of every list in the
// authorization server metadata, its OpenID Connect mirror and both protected-resource documents
// is exercised against the running server and must be honoured. Values are read from the
// documents as served; what "honoured" means comes from the RFCs that define each member.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureSandboxUser } from '../../server/oauth/index.ts';
import { startHarness, type Harness } from '../server/harness.ts';
import { openAuthorize, register, SANDBOX_USER, submitForm, tokenRequest } from './support.ts';

type Json = Record<string, unknown>;
const REDIRECT = 'http://127.0.0.1:40111/cb';
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

describe('metadata documents promise only what the server does', () => {
  let h: Harness;
  let base: string;
  let as: Json;
  let resources: Json[];

  beforeAll(async () => {
    h = await startHarness({ inventorySize: 20, dispatch: false });
    base = h.baseUrl;
    await ensureSandboxUser(h.store, SANDBOX_USER);
    const get = async (path: string) => (await (await fetch(`${base}${path}`)).json()) as Json;
    as = await get('/.well-known/oauth-authorization-server');
    resources = [
      await get('/.well-known/oauth-protected-resource'),
      await get('/.well-known/oauth-protected-resource/mcp'),
    ];
  });
  afterAll(async () => {
    await h?.close();
  });
  beforeEach(() => h.clock.advance(61_000));

  /** An authorization through the sign-in form; the Location the browser is sent to. */
  async function authorize(params: Record<string, string>, decision: 'approve' | 'deny' = 'approve') {
    const verifier = randomBytes(32).toString('base64url');
    const client = await register(base, {
      client_name: 'Metadata truth',
      redirect_uris: [REDIRECT],
      scope: strings(as.scopes_supported).join(' '),
    });
    const url = new URL(String(as.authorization_endpoint));
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      state: 'st',
      ...params,
    }).toString();
    const page = await openAuthorize(url);
    expect(page.status, `${url.search}: ${page.location ?? page.html.slice(0, 300)}`).toBe(200);
    const fields: Record<string, string> =
      decision === 'approve' ? { email: SANDBOX_USER.email, password: SANDBOX_USER.password, decision } : { decision };
    const answer = await submitForm(base, page, fields);
    expect(answer.status).toBe(303);
    return { location: new URL(answer.location ?? ''), verifier, client };
  }

  async function exchange(flow: Awaited<ReturnType<typeof authorize>>) {
    const res = await tokenRequest(base, {
      grant_type: 'authorization_code',
      code: flow.location.searchParams.get('code') ?? '',
      redirect_uri: REDIRECT,
      client_id: flow.client.client_id,
      code_verifier: flow.verifier,
    });
    expect(res.status).toBe(200);
    return (await res.json()) as { access_token: string; refresh_token: string; scope: string };
  }

  it('publishes no OpenID discovery document (nor a key set): no ID token is ever issued', async () => {
    for (const path of ['/.well-known/openid-configuration', '/.well-known/jwks.json']) {
      const res = await fetch(`${base}${path}`);
      expect(res.status, path).toBe(404);
      expect(((await res.json()) as { code: string }).code, path).toBe('not_found');
    }
  });

  it('every endpoint and document URL resolves', async () => {
    const urls = [as.service_documentation, ...resources.map((r) => r.resource_documentation)].map(String);
    for (const url of urls) expect((await fetch(url)).status, url).toBe(200);
    for (const issuer of resources.flatMap((r) => strings(r.authorization_servers))) {
      expect((await fetch(`${issuer}/.well-known/oauth-authorization-server`)).status, issuer).toBe(200);
    }
  });

  it('grants every advertised scope (alone), for every advertised resource', async () => {
    for (const doc of [as, ...resources]) {
      for (const scope of strings(doc.scopes_supported)) {
        h.clock.advance(61_000);
        const resource: Record<string, string> = typeof doc.resource === 'string' ? { resource: doc.resource } : {};
        const flow = await authorize({ scope, ...resource });
        expect(flow.location.searchParams.get('error'), `${scope} ${JSON.stringify(resource)}`).toBeNull();
        expect((await exchange(flow)).scope.split(' ')).toContain(scope);
      }
    }
  });

  it('answers every advertised response type, response mode and PKCE method, with iss as advertised', async () => {
    expect(as.authorization_response_iss_parameter_supported).toBe(true);
    for (const response_type of strings(as.response_types_supported)) {
      for (const response_mode of strings(as.response_modes_supported)) {
        for (const code_challenge_method of strings(as.code_challenge_methods_supported)) {
          const flow = await authorize({ response_type, response_mode, code_challenge_method });
          // response_mode=query: the parameters come back in the query (OAuth 2.0 Multiple Response Types §2.1).
          expect(
            flow.location.searchParams.get('code'),
            `${response_type} ${response_mode} ${code_challenge_method}`,
          ).toMatch(/./);
          expect(flow.location.hash).toBe('');
          expect(flow.location.searchParams.get('iss')).toBe(as.issuer);
        }
      }
    }
    const denied = await authorize({}, 'deny');
    expect(Object.fromEntries(denied.location.searchParams)).toMatchObject({ error: 'access_denied', iss: as.issuer });
  });

  it('honours every advertised grant type and client authentication method, and every bearer method', async () => {
    expect(strings(as.grant_types_supported).sort()).toEqual(['authorization_code', 'refresh_token']);
    const tokens = await exchange(await authorize({}));
    const refreshed = await tokenRequest(base, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect(refreshed.status).toBe(200);
    for (const method of strings(as.token_endpoint_auth_methods_supported)) {
      const res = await fetch(String(as.registration_endpoint), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          client_name: 'auth method',
          redirect_uris: [REDIRECT],
          token_endpoint_auth_method: method,
        }),
      });
      expect(res.status, method).toBe(201);
    }
    const { access_token } = (await refreshed.json()) as { access_token: string };
    for (const method of new Set(resources.flatMap((r) => strings(r.bearer_methods_supported)))) {
      expect(method).toBe('header'); // the only method this test knows how to exercise (RFC 6750 §2.1)
      const res = await fetch(`${base}/api/domain/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${access_token}` },
        body: JSON.stringify({ q: 'zqxtruthprobe.com' }),
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { result: { price_masked: boolean } }).result.price_masked).toBe(false);
    }
  });

  it('advertises no openid scope, and refuses it', async () => {
    expect(strings(as.scopes_supported)).not.toContain('openid');
    // And what is not advertised is refused: openid.
    const client = await register(base, { client_name: 'openid probe', redirect_uris: [REDIRECT] });
    const url = new URL(String(as.authorization_endpoint));
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      scope: 'openid',
    }).toString();
    const refused = await openAuthorize(url);
    expect(refused.status).toBe(302);
    expect(new URL(refused.location ?? '').searchParams.get('error')).toBe('invalid_scope');
  });
});
