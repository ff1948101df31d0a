// Checks an authorization request (GET /oauth/authorize) in the order RFC 6749 §4.1.2.1 and
// the contract fix: first what decides whether the redirect URI can be trusted (client and
// redirect URI: shown to the user, never redirected to), then everything else, answered by a
// redirect to that now-trusted URI. Pure: the client is looked up by the caller.
import type { AuthRequest } from './auth-request.ts';
import { CHALLENGE_FORM } from './pkce.ts';
import { isRegisteredRedirectUri } from './redirect-uri.ts';
import { resolveResource } from './resources.ts';
import { DEFAULT_SCOPE, formatScope, isSubset, MAX_SCOPE_LENGTH, parseScope } from './scopes.ts';

export type Query = Record<string, unknown>;

export type RedirectError = 'invalid_request' | 'unsupported_response_type' | 'invalid_scope' | 'invalid_target';

export type CheckedAuthorizeRequest =
  /** Shown to the user (400 page): the redirect URI cannot be trusted. */
  | {
      kind: 'untrusted';
      code: 'validation_error' | 'invalid_redirect_uri';
      message: string;
      path: string;
      detail: string;
    }
  /**
   * Sent back to the client: a 302 to the redirect URI, or, when that URI is not trusted for an
   * automatic redirect (redirect-uri.ts, errorRedirectsAutomatically), a page with a link to it.
   */
  | {
      kind: 'redirect';
      redirectUri: string;
      error: RedirectError;
      description: string;
      state: string | undefined;
      /** The query parameter at fault. */
      param: string;
    }
  | { kind: 'ok'; request: AuthRequest };

/** The registered client as far as the check needs it. */
export interface ClientView {
  clientId: string;
  redirectUris: readonly string[];
  scope: string;
}

const MAX_STATE = 1024;
const KNOWN = [
  'response_type',
  'client_id',
  'redirect_uri',
  'code_challenge',
  'code_challenge_method',
  'state',
  'scope',
  'resource',
];

/** The value of a parameter sent once; `repeated` when sent more than once or not as text. */
function one(query: Query, name: string): string | undefined | { repeated: true } {
  const v = query[name];
  if (v === undefined) return undefined;
  if (typeof v === 'string') return v === '' ? undefined : v;
  return { repeated: true };
}
const text = (v: ReturnType<typeof one>) => (typeof v === 'string' ? v : undefined);

/** client_id as sent, when it is a single value (the caller looks the client up with it). */
export const requestedClientId = (query: Query) => text(one(query, 'client_id'));

export function checkAuthorizeRequest(
  query: Query,
  base: string,
  client: ClientView | undefined,
  /** Test-only (server/faults.ts `pkce-plain-accepted`): take `plain`, or no method, too. */
  plainPkce = false,
): CheckedAuthorizeRequest {
  const clientId = one(query, 'client_id');
  if (typeof clientId !== 'string') {
    const message = clientId === undefined ? 'client_id is required' : 'client_id must be sent once';
    return {
      kind: 'untrusted',
      code: 'validation_error',
      message: `${message}; the application that sent you here is misconfigured`,
      path: '/query/client_id',
      detail: message,
    };
  }
  if (!client)
    return {
      kind: 'untrusted',
      code: 'validation_error',
      message: `Unknown client_id "${clientId}"`,
      path: '/query/client_id',
      detail: 'unknown client',
    };
  const redirectUri = one(query, 'redirect_uri');
  if (typeof redirectUri !== 'string') {
    const detail = redirectUri === undefined ? 'is required' : 'must be sent once';
    return {
      kind: 'untrusted',
      code: 'invalid_redirect_uri',
      message: `redirect_uri ${detail}; the application that sent you here is misconfigured`,
      path: '/query/redirect_uri',
      detail,
    };
  }
  if (!isRegisteredRedirectUri(client.redirectUris, redirectUri)) {
    return {
      kind: 'untrusted',
      code: 'invalid_redirect_uri',
      message: `redirect_uri "${redirectUri}" is not registered for client ${clientId}`,
      path: '/query/redirect_uri',
      detail: 'not registered for the client',
    };
  }

  // From here on the redirect URI is trusted: errors go back to the client.
  const rawState = one(query, 'state');
  const state = typeof rawState === 'string' && rawState.length <= MAX_STATE ? rawState : undefined;
  const back = (param: string, error: RedirectError, description: string): CheckedAuthorizeRequest => ({
    kind: 'redirect',
    redirectUri,
    error,
    description,
    state,
    param,
  });

  const twice = KNOWN.filter((name) => typeof one(query, name) === 'object');
  if (twice.length > 0)
    return back(twice[0] ?? 'state', 'invalid_request', `Parameters must not be repeated: ${twice.join(', ')}`);
  if (typeof rawState === 'string' && rawState.length > MAX_STATE)
    return back('state', 'invalid_request', `state must be at most ${MAX_STATE} characters`);

  const responseType = text(one(query, 'response_type'));
  if (responseType === undefined) return back('response_type', 'invalid_request', 'response_type is required (code)');
  if (responseType !== 'code') return back('response_type', 'unsupported_response_type', 'response_type must be code');

  const challenge = text(one(query, 'code_challenge'));
  if (challenge === undefined)
    return back('code_challenge', 'invalid_request', 'code_challenge is required (PKCE with S256)');
  const method = text(one(query, 'code_challenge_method'));
  if (method !== 'S256' && !(plainPkce && (method === undefined || method === 'plain')))
    return back(
      'code_challenge_method',
      'invalid_request',
      method === undefined
        ? 'code_challenge_method is required and must be S256'
        : 'code_challenge_method must be S256 (plain is not accepted)',
    );
  if (!CHALLENGE_FORM.test(challenge))
    return back(
      'code_challenge',
      'invalid_request',
      'code_challenge must be the 43-character base64url SHA-256 of the code verifier',
    );

  const scopeParam = text(one(query, 'scope'));
  if (scopeParam !== undefined && scopeParam.length > MAX_SCOPE_LENGTH)
    return back('scope', 'invalid_scope', `scope must be at most ${MAX_SCOPE_LENGTH} characters`);
  const asked = parseScope(scopeParam ?? DEFAULT_SCOPE);
  if (!asked.ok)
    return back(
      'scope',
      'invalid_scope',
      `Unknown scope "${asked.unknown}"; this server offers pricing:read and domains:manage`,
    );
  const allowed = parseScope(client.scope);
  if (!allowed.ok || !isSubset(asked.scopes, allowed.scopes))
    return back('scope', 'invalid_scope', `This client may request only: ${client.scope}`);

  const resourceParam = text(one(query, 'resource'));
  const resource = resolveResource(base, resourceParam);
  if (resource === undefined) return back('resource', 'invalid_target', `resource must be ${base} or ${base}/mcp`);

  return {
    kind: 'ok',
    request: { clientId, redirectUri, codeChallenge: challenge, state, scope: formatScope(asked.scopes), resource },
  };
}
