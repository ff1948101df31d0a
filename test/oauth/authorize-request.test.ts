// The order of the authorization request's checks: client and redirect URI first (shown, never
// redirected), then the errors a trusted redirect URI receives.
import { describe, expect, it } from 'vitest';
import { checkAuthorizeRequest, type ClientView } from '../../server/oauth/authorize-request.ts';
import { documents } from '../docs/support.ts';
import { scopeOfLength } from './support.ts';

const base = 'https://api.example.com';
const client: ClientView = {
  clientId: 'cli_1',
  redirectUris: ['http://127.0.0.1:33418/callback', 'https://app.example.net/cb'],
  scope: 'pricing:read',
};
const good = {
  response_type: 'code',
  client_id: 'cli_1',
  redirect_uri: 'http://127.0.0.1:40000/callback',
  code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
  code_challenge_method: 'S256',
  state: 'xyz',
};

describe('checkAuthorizeRequest', () => {
  it('accepts a complete request, defaulting scope and resource', () => {
    expect(checkAuthorizeRequest(good, base, client)).toEqual({
      kind: 'ok',
      request: {
        clientId: 'cli_1',
        redirectUri: good.redirect_uri,
        codeChallenge: good.code_challenge,
        state: 'xyz',
        scope: 'pricing:read',
        resource: base,
      },
    });
  });

  it('shows, never redirects, an unknown client or an unregistered redirect URI, even when more is wrong', () => {
    const broken = { ...good, code_challenge: undefined, response_type: 'token' };
    expect(checkAuthorizeRequest({ ...broken, client_id: undefined }, base, undefined)).toMatchObject({
      kind: 'untrusted',
      code: 'validation_error',
      path: '/query/client_id',
    });
    expect(checkAuthorizeRequest({ ...broken, client_id: 'cli_nope' }, base, undefined)).toMatchObject({
      kind: 'untrusted',
      code: 'validation_error',
      message: 'Unknown client_id "cli_nope"',
    });
    expect(checkAuthorizeRequest({ ...broken, client_id: ['cli_1', 'cli_1'] }, base, client)).toMatchObject({
      kind: 'untrusted',
      code: 'validation_error',
    });
    expect(
      checkAuthorizeRequest({ ...broken, redirect_uri: 'https://evil.example.net/cb' }, base, client),
    ).toMatchObject({
      kind: 'untrusted',
      code: 'invalid_redirect_uri',
      message: 'redirect_uri "https://evil.example.net/cb" is not registered for client cli_1',
    });
    expect(checkAuthorizeRequest({ ...broken, redirect_uri: undefined }, base, client)).toMatchObject({
      kind: 'untrusted',
      code: 'invalid_redirect_uri',
    });
    expect(
      checkAuthorizeRequest(
        { ...broken, redirect_uri: [good.redirect_uri, 'https://evil.example.net/cb'] },
        base,
        client,
      ),
    ).toMatchObject({ kind: 'untrusted', code: 'invalid_redirect_uri' });
  });

  it("refuses a scope longer than the contract's maxLength (invalid_scope), though repeated values would collapse", () => {
    const op = (
      documents.public.paths as Record<
        string,
        { get: { parameters: Array<{ name?: string; schema?: { maxLength?: number } }> } }
      >
    )['/oauth/authorize']!.get;
    const max = op.parameters.find((p) => p.name === 'scope')?.schema?.maxLength;
    expect(max).toEqual(expect.any(Number));
    const both: ClientView = { ...client, scope: 'pricing:read domains:manage' };
    expect(checkAuthorizeRequest({ ...good, scope: scopeOfLength(max!) }, base, both)).toMatchObject({
      kind: 'ok',
      request: { scope: 'pricing:read domains:manage' },
    });
    expect(checkAuthorizeRequest({ ...good, scope: scopeOfLength(max! + 1) }, base, both)).toMatchObject({
      kind: 'redirect',
      error: 'invalid_scope',
    });
  });

  it('redirects the remaining errors with the state to the redirect URI as sent', () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ code_challenge: undefined }, 'invalid_request'],
      [{ code_challenge_method: undefined }, 'invalid_request'],
      [{ code_challenge_method: 'plain' }, 'invalid_request'],
      [{ code_challenge: 'short' }, 'invalid_request'],
      [{ response_type: undefined }, 'invalid_request'],
      [{ response_type: 'token' }, 'unsupported_response_type'],
      [{ scope: 'domains:manage' }, 'invalid_scope'],
      [{ scope: 'openid' }, 'invalid_scope'],
      [{ resource: 'https://other.example.com' }, 'invalid_target'],
      [{ code_challenge: [good.code_challenge, good.code_challenge] }, 'invalid_request'],
    ];
    for (const [change, error] of cases) {
      expect(checkAuthorizeRequest({ ...good, ...change }, base, client), JSON.stringify(change)).toMatchObject({
        kind: 'redirect',
        error,
        state: 'xyz',
        redirectUri: good.redirect_uri,
      });
    }
  });

  it('binds the resource and the scopes the client may ask for', () => {
    const both: ClientView = { ...client, scope: 'pricing:read domains:manage' };
    expect(
      checkAuthorizeRequest({ ...good, scope: 'domains:manage pricing:read', resource: `${base}/mcp` }, base, both),
    ).toMatchObject({
      kind: 'ok',
      request: { scope: 'pricing:read domains:manage', resource: `${base}/mcp` },
    });
    expect(checkAuthorizeRequest({ ...good, resource: `${base}/` }, base, client)).toMatchObject({
      kind: 'ok',
      request: { resource: base },
    });
  });

  it('does not echo an oversized state', () => {
    expect(checkAuthorizeRequest({ ...good, state: 'x'.repeat(1025) }, base, client)).toMatchObject({
      kind: 'redirect',
      error: 'invalid_request',
      state: undefined,
    });
  });
});
