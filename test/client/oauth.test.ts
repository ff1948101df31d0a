// The PKCE helper against a minimal authorization server written here from RFC 6749/7636/8414/9207,
// so the helper's requests are checked by code that is not the helper's.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPkceFlow, discover, registerClient, type TokenSet } from '../../client/oauth.ts';

let server: Server;
let issuer = '';
const codes = new Map<string, { challenge: string; redirect: string; clientId: string; used: boolean }>();
const refreshTokens = new Map<string, boolean>(); // token -> still valid
const REDIRECT = 'http://127.0.0.1:9/callback';

const b64url = (buf: Buffer) => buf.toString('base64url');
const json = (res: import('node:http').ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
};

function issue(res: import('node:http').ServerResponse) {
  const refresh = b64url(randomBytes(16));
  refreshTokens.set(refresh, true);
  json(res, 200, {
    access_token: b64url(randomBytes(16)),
    token_type: 'Bearer',
    expires_in: 1800,
    refresh_token: refresh,
    scope: 'pricing:read',
  });
}

beforeAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- a test server; vitest reports an unhandled rejection
  server = createServer(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const url = new URL(req.url ?? '/', issuer);
    if (url.pathname === '/.well-known/oauth-authorization-server') {
      return json(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/oauth/authorize`,
        token_endpoint: `${issuer}/api/oauth/token`,
        registration_endpoint: `${issuer}/api/oauth/register`,
        code_challenge_methods_supported: ['S256'],
        authorization_response_iss_parameter_supported: true,
      });
    }
    if (url.pathname === '/api/oauth/register') {
      const meta = JSON.parse(raw) as Record<string, unknown>;
      return json(res, 201, { ...meta, client_id: 'client_123', token_endpoint_auth_method: 'none' });
    }
    if (url.pathname === '/api/oauth/token') {
      const form = new URLSearchParams(raw);
      if (form.get('grant_type') === 'authorization_code') {
        const entry = codes.get(form.get('code') ?? '');
        const verifier = form.get('code_verifier') ?? '';
        const challenge = b64url(createHash('sha256').update(verifier).digest());
        if (
          !entry ||
          entry.used ||
          entry.challenge !== challenge ||
          entry.redirect !== form.get('redirect_uri') ||
          entry.clientId !== form.get('client_id')
        ) {
          return json(res, 400, {
            error: 'invalid_grant',
            error_description: 'code, verifier or redirect_uri mismatch',
          });
        }
        entry.used = true;
        return issue(res);
      }
      if (form.get('grant_type') === 'refresh_token') {
        const token = form.get('refresh_token') ?? '';
        if (!refreshTokens.get(token))
          return json(res, 400, { error: 'invalid_grant', error_description: 'refresh token rotated or unknown' });
        refreshTokens.set(token, false);
        return issue(res);
      }
    }
    json(res, 404, { error: 'not_found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Plays the user's browser at the authorization server: approves and returns the redirect URL. */
function approve(url: URL, override: Record<string, string | null> = {}): string {
  expect(url.searchParams.get('code_challenge_method')).toBe('S256');
  expect(url.searchParams.get('response_type')).toBe('code');
  const code = b64url(randomBytes(12));
  codes.set(code, {
    challenge: url.searchParams.get('code_challenge') ?? '',
    redirect: url.searchParams.get('redirect_uri') ?? '',
    clientId: url.searchParams.get('client_id') ?? '',
    used: false,
  });
  const back = new URL(url.searchParams.get('redirect_uri') ?? '');
  const params: Record<string, string | null> = {
    code,
    state: url.searchParams.get('state'),
    iss: issuer,
    ...override,
  };
  for (const [k, v] of Object.entries(params)) if (v !== null) back.searchParams.set(k, v);
  return back.toString();
}

async function flow() {
  const as = await discover(issuer, { allowHttp: true });
  const clientId = await registerClient(as, { redirect_uris: [REDIRECT], client_name: 'test' }, { allowHttp: true });
  return createPkceFlow(as, { issuer, clientId, redirectUri: REDIRECT, allowHttp: true });
}

describe('PKCE flow', () => {
  it('registers, authorizes with S256 and exchanges the code', async () => {
    const pkce = await flow();
    const pending = await pkce.start();
    const tokens = await pkce.finish(approve(pending.url), pending);
    expect(tokens.access_token).toMatch(/.{16,}/);
    expect(tokens.refresh_token).toMatch(/.{16,}/);
    expect(tokens.expires_at).toBeGreaterThan(Date.now() + 1700_000);
  });

  it('refuses a redirect with another state, or without iss', async () => {
    const pkce = await flow();
    const pending = await pkce.start();
    await expect(pkce.finish(approve(pending.url, { state: 'forged' }), pending)).rejects.toThrow();
    await expect(pkce.finish(approve(pending.url, { iss: null }), pending)).rejects.toThrow();
  });

  it('fails the exchange with the wrong verifier', async () => {
    const pkce = await flow();
    const pending = await pkce.start();
    await expect(pkce.finish(approve(pending.url), { ...pending, codeVerifier: 'x'.repeat(43) })).rejects.toMatchObject(
      { error: 'invalid_grant' },
    );
  });

  it('refresh rotates: the new set is saved and the old refresh token is dead', async () => {
    const pkce = await flow();
    const pending = await pkce.start();
    let stored: TokenSet | undefined = await pkce.finish(approve(pending.url), pending);
    const first = stored.refresh_token;
    const store = { load: () => stored, save: (t: TokenSet) => void (stored = t) };
    const next = await pkce.refresh(store);
    expect(next.refresh_token).not.toBe(first);
    expect(stored).toEqual(next);
    stored = { ...next, refresh_token: first };
    await expect(pkce.refresh(store)).rejects.toMatchObject({ error: 'invalid_grant' });
  });
});
