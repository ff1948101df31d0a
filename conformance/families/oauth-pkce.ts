// PKCE `plain` is refused (`x-pkce` of getAuthorizePage: required, methods [S256];
// `code_challenge_method` "Always S256 (plain is refused)"; seed: public › Authentication,
// "PKCE (S256)"). At /oauth/authorize, `code_challenge_method=plain` or no method at all (RFC
// 7636 reads a missing method as plain) goes back to the client with error=invalid_request, state
// and iss, like a missing code_challenge (the documented 302). At /api/oauth/token, a
// code_verifier equal to the code_challenge (what a plain comparison accepts) is invalid_grant.
import { randomBytes } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { expect, type Check } from '../context.ts';
import { authorizationCode, authorizeTarget, discovered, REDIRECT_URI, register, tokenRequest } from '../oauth-flow.ts';
import { expectOAuthError } from './oauth-support.ts';

const scope = 'pricing:read';

export const pkcePlainChecks: Check[] = [
  {
    id: 'public.oauth.pkce-plain-refused.authorize',
    rules: [
      'spec:public:getAuthorizePage#/x-pkce',
      'spec:public:getAuthorizePage#/responses/302',
      'seed:public › Authentication',
    ],
    name: 'GET /oauth/authorize with code_challenge_method=plain, or without the method, is redirected (302) to the client with error=invalid_request, state and iss: PKCE is S256 only',
    async run(ctx) {
      const as = await discovered(ctx);
      const client = await register(ctx, as, scope);
      // A challenge of the S256 form, so that only the method is wrong.
      const challenge = await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier());
      for (const [what, method] of [
        ['code_challenge_method=plain', 'plain'],
        ['no code_challenge_method', undefined],
        ['code_challenge_method=s256 (the method name is case-sensitive)', 's256'],
      ] as const) {
        const state = `pkce-${randomBytes(6).toString('hex')}`;
        const s256 = authorizeTarget(ctx, as, client, { scope, state, codeChallenge: challenge });
        const target = s256.replace(/([?&])code_challenge_method=S256(&?)/, (_, lead: string, tail: string) =>
          method === undefined ? (tail ? lead : '') : `${lead}code_challenge_method=${method}${tail}`,
        );
        const e = await ctx.http.send({ target, headers: { accept: 'text/html' }, deliberate: true });
        const back = e.responseHeaders.location ? new URL(e.responseHeaders.location, ctx.http.baseUrl) : undefined;
        expect(
          e.status === 302 &&
            back?.href.startsWith(REDIRECT_URI) &&
            back.searchParams.get('error') === 'invalid_request' &&
            back.searchParams.get('state') === state &&
            back.searchParams.get('iss') === ctx.http.baseUrl,
          `an authorization request with ${what} must be redirected (302) to the client with error=invalid_request, its state and iss (PKCE is S256 only, x-pkce); got ${e.status} ${back?.href ?? '(no Location)'}`,
          [e],
        );
      }
    },
  },
  {
    id: 'public.oauth.pkce-plain-refused.token',
    rules: ['spec:public:getAuthorizePage#/x-pkce', 'spec:public:requestToken#/responses/400'],
    needs: ['oauth-user'],
    name: 'a code exchanged with its code_challenge as the code_verifier (the plain method) is invalid_grant; the S256 verifier still works',
    async run(ctx) {
      const grant = await authorizationCode(ctx, { scope });
      const challenge = await oauth.calculatePKCECodeChallenge(grant.verifier);
      const plain = await tokenRequest(ctx, grant.as, {
        grant_type: 'authorization_code',
        code: grant.code,
        redirect_uri: grant.redirectUri,
        client_id: grant.client.client_id,
        code_verifier: challenge,
      });
      expectOAuthError(
        plain,
        'invalid_grant',
        'a code exchanged with code_verifier equal to its code_challenge (a plain PKCE comparison; only S256 is accepted)',
      );
    },
  },
];
