// The OAuth 2.1 authorization server of the public surface: dynamic registration, the
// sign-in and consent pages, the token endpoint, the discovery documents, and the verifier the
// pipeline resolves bearer tokens with. Built here rather than on oidc-provider: the contract
// fixes paths, error shapes and race semantics that are easier to meet exactly than to
// configure into a general OpenID provider.
import type { AccessTokenVerifier, HandlerMap, PublicDeps, Viewer } from '../public-api/context.ts';
import { authorizeForm, authorizePage } from './authorize.ts';
import type { GrantDeps } from './grants.ts';
import { metadataHandlers } from './metadata.ts';
import { registrationEndpoint } from './registration.ts';
import { hashSecret } from './secrets.ts';
import { tokenEndpoint } from './token-endpoint.ts';

export { ensureSandboxUser } from './users.ts';

export interface OAuthServer {
  handlers: HandlerMap;
  accessTokens: AccessTokenVerifier;
  /**
   * Handlers (also in `handlers`) that check their whole input themselves and must run without
   * the OpenAPI request validator in front: the authorization endpoint decides between an error
   * page and an error redirect by checking client_id and redirect_uri before anything else,
   * which a validator refusing a missing code_challenge first would preempt.
   */
  selfValidating: HandlerMap;
}

const TOKEN_FORM = /^at_[A-Za-z0-9_-]{43}$/;

export function createOAuthServer(deps: PublicDeps): OAuthServer {
  const grantDeps: GrantDeps = {
    store: deps.store,
    key: deps.keys.oauth,
    now: () => deps.clock.now(),
    ...(deps.faults.has('pkce-plain-accepted') ? { plainPkce: true } : {}),
    ...(deps.faults.has('long-code-lifetime') ? { codeTtlMs: 10 * 60 * 1000 } : {}),
  };
  const getAuthorizePage = authorizePage(deps);
  return {
    selfValidating: { getAuthorizePage },
    handlers: {
      registerOAuthClient: registrationEndpoint(deps),
      getAuthorizePage,
      submitAuthorizeForm: authorizeForm(deps, grantDeps),
      requestToken: tokenEndpoint(deps, grantDeps),
      ...metadataHandlers(deps),
    },
    accessTokens: {
      async verify(token: string): Promise<Viewer | null> {
        // Anything not shaped like our tokens is refused without a database round trip.
        if (!TOKEN_FORM.test(token)) return null;
        const row = await deps.store.oauth.findLiveAccessToken(
          hashSecret(deps.keys.oauth, 'access', token),
          deps.clock.now(),
        );
        if (!row) return null;
        return {
          userId: row.user_id,
          clientId: row.client_id,
          grantId: row.grant_id,
          scopes: row.scope.split(' '),
          resource: row.resource,
        };
      },
    },
  };
}
