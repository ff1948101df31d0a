// The authorization server's pure rules: redirect-URI registration and matching, PKCE, token
// hashing, scopes, client metadata, the signed sign-in form state and password hashing.
import { describe, expect, it } from 'vitest';
import {
  AUTH_REQUEST_TTL_MS,
  openAuthRequest,
  sealAuthRequest,
  type AuthRequest,
} from '../../server/oauth/auth-request.ts';
import { checkClientMetadata } from '../../server/oauth/client-metadata.ts';
import { hashPassword, verifyPassword } from '../../server/oauth/passwords.ts';
import { s256, verifyS256 } from '../../server/oauth/pkce.ts';
import { isRegisteredRedirectUri, redirectUriProblem, withParams } from '../../server/oauth/redirect-uri.ts';
import { resolveResource } from '../../server/oauth/resources.ts';
import { formatScope, parseScope } from '../../server/oauth/scopes.ts';
import { hashSecret, newSecret } from '../../server/oauth/secrets.ts';

describe('redirect URI matching', () => {
  const registered = [
    'https://app.example.net/cb',
    'http://127.0.0.1:33418/callback',
    'http://localhost/cb',
    'http://[::1]:9/x?a=1',
    'com.example.app:/oauth',
  ];

  it('accepts exactly the registered strings', () => {
    for (const uri of registered) expect(isRegisteredRedirectUri(registered, uri)).toBe(true);
  });

  it('matches a loopback redirect on a port from 1 to 65535 only: port 0 is no port', () => {
    for (const uri of ['http://127.0.0.1:0/callback', 'http://127.0.0.1:00/callback', 'http://[::1]:0/x?a=1'])
      expect(isRegisteredRedirectUri(registered, uri), uri).toBe(false);
    expect(isRegisteredRedirectUri(registered, 'http://127.0.0.1:1/callback')).toBe(true);
  });

  it('ignores the port on loopback hosts only', () => {
    expect(isRegisteredRedirectUri(registered, 'http://127.0.0.1:50000/callback')).toBe(true);
    expect(isRegisteredRedirectUri(registered, 'http://127.0.0.1/callback')).toBe(true);
    expect(isRegisteredRedirectUri(registered, 'http://localhost:8080/cb')).toBe(true);
    expect(isRegisteredRedirectUri(registered, 'http://[::1]:12345/x?a=1')).toBe(true);
    expect(isRegisteredRedirectUri(registered, 'https://app.example.net:8443/cb')).toBe(false);
  });

  it('compares everything else as an exact string', () => {
    for (const uri of [
      'https://app.example.net/cb/',
      'https://APP.example.net/cb',
      'https://app.example.net/cb?x=1',
      'https://app.example.net/CB',
      'http://app.example.net/cb',
      'http://127.0.0.1:50000/callback/extra',
      'http://127.0.0.1:50000/Callback',
      'http://localhost.evil.net:80/cb',
      'http://127.0.0.2:33418/callback',
      'https://127.0.0.1:33418/callback',
      'http://[::1]:9/x?a=2',
      'http://localhost:80@evil.net/cb',
      'com.example.app:/oauth2',
    ]) {
      expect(isRegisteredRedirectUri(registered, uri), uri).toBe(false);
    }
  });

  it('registers https, loopback http and reverse-domain private-use schemes only', () => {
    for (const ok of [
      'https://app.example.net/cb',
      'http://127.0.0.1:1/cb',
      'http://[::1]/cb',
      'http://localhost:3000/cb',
      'com.example.app:/cb',
    ]) {
      expect(redirectUriProblem(ok), ok).toBeUndefined();
    }
    expect(redirectUriProblem('http://app.example.net/callback')).toBe(
      'http redirect URIs are allowed only on loopback hosts: http://app.example.net/callback',
    );
    expect(redirectUriProblem('https://app.example.net/cb#frag')).toMatch(/fragment/);
    for (const zero of ['http://localhost:0/cb', 'http://127.0.0.1:00/cb', 'https://app.example.net:0/cb'])
      expect(redirectUriProblem(zero), zero).toMatch(/port 0/);
    expect(redirectUriProblem('/relative/cb')).toMatch(/not an absolute URI/);
    expect(redirectUriProblem('javascript:alert(1)')).toMatch(/javascript scheme is not allowed/);
    expect(redirectUriProblem('data:text/html,hi')).toMatch(/data scheme/);
    expect(redirectUriProblem('myapp:/cb')).toMatch(/reverse-domain/);
    expect(redirectUriProblem('https://user:pw@app.example.net/cb')).toMatch(/credentials/);
    expect(redirectUriProblem(`https://app.example.net/${'a'.repeat(2000)}`)).toMatch(/at most 2000/);
  });

  it('adds response parameters to the query, keeping one that is there', () => {
    expect(withParams('http://127.0.0.1:5/cb?keep=1', { code: 'a b', state: undefined, iss: 'http://x' })).toBe(
      'http://127.0.0.1:5/cb?keep=1&code=a+b&iss=http%3A%2F%2Fx',
    );
  });
});

describe('PKCE S256', () => {
  // RFC 7636 Appendix B.
  const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
  const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

  it('matches the RFC 7636 example', () => {
    expect(s256(verifier)).toBe(challenge);
    expect(verifyS256(verifier, challenge)).toBe(true);
  });

  it('refuses another verifier, a plain challenge and malformed verifiers', () => {
    expect(verifyS256(`${verifier.slice(0, -1)}l`, challenge)).toBe(false);
    expect(verifyS256(verifier, verifier)).toBe(false);
    expect(verifyS256('short', s256('short'))).toBe(false);
    expect(verifyS256('a'.repeat(129), s256('a'.repeat(129)))).toBe(false);
    expect(verifyS256(`${'a'.repeat(42)}!`, s256(`${'a'.repeat(42)}!`))).toBe(false);
  });
});

describe('token hashing', () => {
  const key = Buffer.from('test-key');

  it('is HMAC-SHA256 over the kind label and the token', () => {
    // printf 'oauth-access\0at_example' | openssl dgst -sha256 -hmac test-key -binary | base64url
    expect(hashSecret(key, 'access', 'at_example')).toBe('U2zu0baHO8vs2mxP0y_nPHF9UheLMfjnp3q1LwrKra8');
  });

  it('depends on the key and on the kind, so one kind never passes as another', () => {
    const token = newSecret('refresh');
    expect(hashSecret(key, 'refresh', token)).not.toBe(hashSecret(Buffer.from('other-key'), 'refresh', token));
    expect(hashSecret(key, 'refresh', token)).not.toBe(hashSecret(key, 'access', token));
    expect(hashSecret(key, 'refresh', token)).not.toContain(token.slice(3));
  });

  it('mints unguessable, prefixed tokens', () => {
    const tokens = new Set(Array.from({ length: 100 }, () => newSecret('access')));
    expect(tokens.size).toBe(100);
    for (const t of tokens) expect(t).toMatch(/^at_[A-Za-z0-9_-]{43}$/);
    expect(newSecret('code')).toMatch(/^ac_/);
    expect(newSecret('refresh')).toMatch(/^rt_/);
  });
});

describe('scopes and resources', () => {
  it('parses, deduplicates and orders scopes canonically', () => {
    expect(parseScope('domains:manage pricing:read domains:manage')).toEqual({
      ok: true,
      scopes: ['pricing:read', 'domains:manage'],
    });
    expect(parseScope('pricing:read openid')).toEqual({ ok: false, unknown: 'openid' });
    expect(parseScope('pricing:read  domains:manage').ok).toBe(false);
    expect(formatScope(['domains:manage', 'pricing:read'])).toBe('pricing:read domains:manage');
  });

  it('knows the two audiences, with or without the origin slash', () => {
    const base = 'https://api.example.com';
    expect(resolveResource(base, undefined)).toBe(base);
    expect(resolveResource(base, `${base}/`)).toBe(base);
    expect(resolveResource(base, `${base}/mcp`)).toBe(`${base}/mcp`);
    expect(resolveResource(base, `${base}/mcp/`)).toBeUndefined();
    expect(resolveResource(base, 'https://evil.example.com')).toBeUndefined();
  });
});

describe('client metadata (RFC 7591)', () => {
  it('fills in the defaults and drops members it does not know', () => {
    const checked = checkClientMetadata({
      client_name: 'X',
      redirect_uris: ['http://127.0.0.1/cb'],
      jwks_uri: 'https://x',
      unknown: 1,
    });
    expect(checked).toEqual({
      ok: true,
      metadata: {
        client_name: 'X',
        redirect_uris: ['http://127.0.0.1/cb'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        scope: 'pricing:read',
      },
    });
  });

  it('refuses confidential clients, foreign grant types and bad redirect URIs with the RFC 7591 codes', () => {
    const base = { client_name: 'X', redirect_uris: ['https://a.example/cb'] };
    const error = (body: unknown) => {
      const r = checkClientMetadata(body);
      return r.ok ? undefined : r.error.error;
    };
    expect(error({ ...base, token_endpoint_auth_method: 'client_secret_basic' })).toBe('invalid_client_metadata');
    expect(error({ ...base, grant_types: ['client_credentials'] })).toBe('invalid_client_metadata');
    expect(error({ ...base, grant_types: ['refresh_token'] })).toBe('invalid_client_metadata');
    expect(error({ ...base, response_types: ['token'] })).toBe('invalid_client_metadata');
    expect(error({ ...base, scope: 'admin' })).toBe('invalid_client_metadata');
    expect(error({ redirect_uris: base.redirect_uris })).toBe('invalid_client_metadata');
    expect(error({ client_name: 'X' })).toBe('invalid_client_metadata');
    expect(error([])).toBe('invalid_client_metadata');
    expect(error({ ...base, redirect_uris: ['http://app.example.net/cb'] })).toBe('invalid_redirect_uri');
    expect(error({ ...base, client_uri: 'javascript:alert(1)' })).toBe('invalid_client_metadata');
  });
});

describe('the signed sign-in form state', () => {
  const key = Buffer.alloc(32, 7);
  const request: AuthRequest = {
    clientId: 'cli_1',
    redirectUri: 'http://127.0.0.1/cb',
    codeChallenge: 'c'.repeat(43),
    state: 's',
    scope: 'pricing:read',
    resource: 'http://x',
  };
  const csrf = 'csrf-token-0123456789';
  const now = 1_000_000;

  it('round-trips with the matching CSRF pair within 10 minutes', () => {
    const token = sealAuthRequest(key, request, csrf, now);
    expect(openAuthRequest(key, token, csrf, csrf, now + AUTH_REQUEST_TTL_MS - 1)).toEqual({
      ok: true,
      request,
      id: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      expiresAt: now + AUTH_REQUEST_TTL_MS,
    });
    // Each sealing is its own request, with its own single decision (one id each).
    const twin = openAuthRequest(key, sealAuthRequest(key, request, csrf, now), csrf, csrf, now);
    const first = openAuthRequest(key, token, csrf, csrf, now);
    expect(twin.ok && first.ok && twin.id !== first.id).toBe(true);
    expect(openAuthRequest(key, token, csrf, csrf, now + AUTH_REQUEST_TTL_MS)).toEqual({
      ok: false,
      problem: 'expired',
    });
  });

  it("refuses a missing or different CSRF value, another browser's cookie, and tampering", () => {
    const token = sealAuthRequest(key, request, csrf, now);
    expect(openAuthRequest(key, token, undefined, csrf, now)).toEqual({ ok: false, problem: 'csrf' });
    expect(openAuthRequest(key, token, csrf, 'csrf-token-9999999999', now)).toEqual({ ok: false, problem: 'csrf' });
    // A matching pair of the attacker's own, with the victim's auth_request: bound to another value.
    const other = 'attacker-csrf-000000000';
    expect(openAuthRequest(key, token, other, other, now)).toEqual({ ok: false, problem: 'csrf' });
    const [payload, mac] = token.slice(3).split('.');
    const forged = `ar_${Buffer.from(
      Buffer.from(payload ?? '', 'base64url')
        .toString()
        .replace('cli_1', 'cli_2'),
    ).toString('base64url')}.${mac}`;
    expect(openAuthRequest(key, forged, csrf, csrf, now)).toEqual({ ok: false, problem: 'invalid' });
    expect(openAuthRequest(Buffer.alloc(32, 8), token, csrf, csrf, now)).toEqual({ ok: false, problem: 'invalid' });
  });
});

describe('passwords', () => {
  it('verifies the right password only, with a fresh salt each time', async () => {
    const a = await hashPassword('correct horse');
    const b = await hashPassword('correct horse');
    expect(a).not.toBe(b);
    expect(a).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(await verifyPassword('correct horse', a)).toBe(true);
    expect(await verifyPassword('correct horsf', a)).toBe(false);
    expect(await verifyPassword('correct horse', 'md5$whatever')).toBe(false);
  });
});
