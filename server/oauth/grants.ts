// The grant lifecycle: a code issued at consent, exchanged once for tokens, refresh tokens
// rotated on every use. Errors come back as values in the RFC 6749 vocabulary; the token
// endpoint turns them into answers. The two races (a code exchanged twice, a refresh token
// rotated twice) are decided by the repository's conditional UPDATEs; the loser revokes the
// grant, and since a token lives only while its grant does, the winner's fresh tokens die too,
// whichever order the writes land in.
import type { components } from '../../generated/public.d.ts';
import { newId } from '../ids.ts';
import type { Repositories, Store } from '../store/index.ts';
import type { GrantRow } from '../store/oauth.ts';
import { verifyS256 } from './pkce.ts';
import { hashSecret, newSecret } from './secrets.ts';
import { formatScope, isSubset, parseScope } from './scopes.ts';

export const CODE_TTL_MS = 60 * 1000;
export const ACCESS_TOKEN_TTL_S = 1800;
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 3600 * 1000;

export type TokenResponse = components['schemas']['TokenResponse'];
export type TokenError = components['schemas']['TokenError'];
export type GrantResult = { ok: true; tokens: TokenResponse } | { ok: false; error: TokenError };

export interface GrantDeps {
  store: Store;
  /** Keys the stored hashes of codes and tokens. */
  key: Uint8Array;
  now(): number;
  /** Test-only (server/faults.ts `pkce-plain-accepted`): a verifier equal to the challenge passes too. */
  plainPkce?: boolean;
  /** Test-only (server/faults.ts `long-code-lifetime`): another code lifetime than CODE_TTL_MS. */
  codeTtlMs?: number;
}

const fail = (error: TokenError['error'], description: string): GrantResult => ({
  ok: false,
  error: { error, error_description: description },
});

/** What the user approved on the consent page. */
export interface Approval {
  clientId: string;
  userId: string;
  redirectUri: string;
  codeChallenge: string;
  scope: string;
  resource: string;
}

/** Records the grant and returns its single-use code (60 s). */
export async function issueCode(deps: GrantDeps, approval: Approval): Promise<string> {
  const now = deps.now();
  const code = newSecret('code');
  const grantId = newId('grt');
  await deps.store.transaction(async (tx) => {
    await tx.oauth.insertGrant({
      grant_id: grantId,
      client_id: approval.clientId,
      user_id: approval.userId,
      scope: approval.scope,
      resource: approval.resource,
      created_at: now,
      revoked_at: null,
    });
    await tx.oauth.insertCode({
      code_hash: hashSecret(deps.key, 'code', code),
      grant_id: grantId,
      client_id: approval.clientId,
      redirect_uri: approval.redirectUri,
      code_challenge: approval.codeChallenge,
      expires_at: now + (deps.codeTtlMs ?? CODE_TTL_MS),
      used_at: null,
      created_at: now,
    });
  });
  return code;
}

/** Writes a new access and refresh token of a grant. */
async function mintTokens(
  deps: GrantDeps,
  tx: Repositories,
  grant: GrantRow,
  accessScope: string,
  now: number,
): Promise<TokenResponse> {
  const access = newSecret('access');
  const refresh = newSecret('refresh');
  const common = { grant_id: grant.grant_id, client_id: grant.client_id, created_at: now, rotated_at: null };
  await tx.oauth.insertToken({
    ...common,
    token_hash: hashSecret(deps.key, 'access', access),
    kind: 'access',
    scope: accessScope,
    expires_at: now + ACCESS_TOKEN_TTL_S * 1000,
  });
  // A refresh token always carries the whole grant (RFC 6749 §6); only access tokens narrow.
  await tx.oauth.insertToken({
    ...common,
    token_hash: hashSecret(deps.key, 'refresh', refresh),
    kind: 'refresh',
    scope: grant.scope,
    expires_at: now + REFRESH_TOKEN_TTL_MS,
  });
  return {
    access_token: access,
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_TTL_S,
    refresh_token: refresh,
    scope: accessScope,
  };
}

export interface CodeExchange {
  code: string;
  clientId: string;
  redirectUri: string;
  codeVerifier: string;
  resource: string | undefined;
}

/**
 * Exchanges a code. A replay is answered `invalid_grant` and revokes the grant only when it is
 * otherwise valid (same client, redirect URI and PKCE verifier): a stolen code alone cannot be
 * used to revoke someone's tokens.
 */
export async function exchangeCode(deps: GrantDeps, request: CodeExchange): Promise<GrantResult> {
  const now = deps.now();
  const codeHash = hashSecret(deps.key, 'code', request.code);
  const code = await deps.store.oauth.findCode(codeHash);
  if (!code)
    return fail('invalid_grant', 'The authorization code is unknown or has expired; start the authorization again');
  if (code.client_id !== request.clientId)
    return fail('invalid_grant', 'The authorization code was issued to another client');
  if (code.redirect_uri !== request.redirectUri)
    return fail('invalid_grant', 'redirect_uri does not match the one of the authorization request');
  const plain = deps.plainPkce === true && request.codeVerifier === code.code_challenge;
  if (!plain && !verifyS256(request.codeVerifier, code.code_challenge))
    return fail('invalid_grant', 'code_verifier does not match the code_challenge');
  const grant = await deps.store.oauth.findGrant(code.grant_id);
  if (!grant)
    return fail('invalid_grant', 'The authorization code is unknown or has expired; start the authorization again');
  if (request.resource !== undefined && request.resource !== grant.resource) {
    return fail('invalid_target', `resource must be the one of the authorization request (${grant.resource})`);
  }
  const replayed = async () => {
    await deps.store.oauth.revokeGrant(grant.grant_id, now);
    return fail('invalid_grant', 'The authorization code has already been used; the tokens issued from it are revoked');
  };
  if (code.used_at !== null) return replayed();
  if (now >= code.expires_at)
    return fail(
      'invalid_grant',
      'The authorization code has expired (codes live 60 seconds); start the authorization again',
    );
  if (grant.revoked_at !== null)
    return fail('invalid_grant', 'The authorization has been revoked; start the authorization again');
  const tokens = await deps.store.transaction(async (tx) =>
    (await tx.oauth.claimCode(codeHash, now)) ? mintTokens(deps, tx, grant, grant.scope, now) : undefined,
  );
  return tokens ? { ok: true, tokens } : replayed();
}

export interface Refresh {
  refreshToken: string;
  clientId: string | undefined;
  scope: string | undefined;
  resource: string | undefined;
}

/**
 * Rotates a refresh token. Presenting one that was already rotated means two parties hold it
 * (RFC 9700 §4.14.2): the whole grant is revoked, and the caller signs in again.
 */
export async function refreshGrant(deps: GrantDeps, request: Refresh): Promise<GrantResult> {
  const now = deps.now();
  const tokenHash = hashSecret(deps.key, 'refresh', request.refreshToken);
  const token = await deps.store.oauth.findRefreshToken(tokenHash);
  if (!token)
    return fail('invalid_grant', 'The refresh token is unknown or has expired; start the authorization again');
  if (request.clientId !== undefined && request.clientId !== token.client_id)
    return fail('invalid_grant', 'The refresh token was issued to another client');
  const grant = await deps.store.oauth.findGrant(token.grant_id);
  if (!grant || grant.revoked_at !== null)
    return fail('invalid_grant', 'The authorization has been revoked; start the authorization again');
  const reused = async () => {
    await deps.store.oauth.revokeGrant(grant.grant_id, now);
    return fail('invalid_grant', 'The refresh token has been rotated; the grant is revoked, sign in again');
  };
  if (token.rotated_at !== null) return reused();
  if (now >= token.expires_at)
    return fail(
      'invalid_grant',
      'The refresh token has expired (refresh tokens live 30 days); start the authorization again',
    );

  let accessScope = grant.scope;
  if (request.scope !== undefined) {
    const asked = parseScope(request.scope);
    const granted = parseScope(grant.scope);
    if (!asked.ok || !granted.ok || !isSubset(asked.scopes, granted.scopes)) {
      return fail('invalid_scope', `scope may only narrow the grant's scopes (${grant.scope})`);
    }
    accessScope = formatScope(asked.scopes);
  }
  if (request.resource !== undefined && request.resource !== grant.resource)
    return fail('invalid_target', `resource must be the grant's resource (${grant.resource})`);

  const tokens = await deps.store.transaction(async (tx) =>
    (await tx.oauth.rotateRefreshToken(tokenHash, now)) ? mintTokens(deps, tx, grant, accessScope, now) : undefined,
  );
  return tokens ? { ok: true, tokens } : reused();
}
