// Authorization between principals on the public surface (rules in the
// contract: `x-token-rules` of requestToken, the IdempotencyKey parameter): two OAuth clients
// of the sandbox user, A and B. A's authorization code and refresh token are bound to A (client
// B presenting them gets invalid_grant), and Idempotency-Keys are scoped to the grant that used
// them (B's first use of A's key is a fresh request, never A's stored answer or a conflict).
import { randomUUID } from 'node:crypto';
import { expect, type Context, type Family } from '../context.ts';
import { jsonOf } from '../http.ts';
import { authorizationCode, discovered, exchangeCode, register, tokenRequest } from '../oauth-flow.ts';
import { callPublic, expectPublicCode } from './public-support.ts';

const scope = 'pricing:read';

function expectInvalidGrant(e: Parameters<typeof jsonOf>[0], why: string): void {
  const body = jsonOf(e) as { error?: unknown } | undefined;
  expect(
    e.status === 400 && body?.error === 'invalid_grant',
    `${why}: expected 400 {"error": "invalid_grant"}, got ${e.status} ${e.responseBody.slice(0, 200)}`,
    [e],
  );
}

async function twoClients(ctx: Context) {
  const as = await discovered(ctx);
  return { as, a: await register(ctx, as, scope), b: await register(ctx, as, scope) };
}

export const publicAuthorizationFamily: Family = {
  name: 'public-authorization',
  surface: 'public',
  description:
    'Between OAuth clients and grants: codes and refresh tokens are bound to their client; Idempotency-Keys to their grant',
  needs: ['oauth-user'],
  checks: [
    {
      id: 'public.authz.code-per-client',
      rules: ['spec:public:requestToken#/x-token-rules', 'seed:public › Authentication'],
      name: "client B exchanging client A's authorization code (with A's verifier and redirect_uri) gets invalid_grant",
      async run(ctx) {
        const { as, a, b } = await twoClients(ctx);
        const grant = await authorizationCode(ctx, { scope, as, client: a });
        const stolen = await tokenRequest(ctx, as, {
          grant_type: 'authorization_code',
          code: grant.code,
          redirect_uri: grant.redirectUri,
          client_id: b.client_id,
          code_verifier: grant.verifier,
        });
        expectInvalidGrant(stolen, "client B presenting client A's code");
      },
    },
    {
      id: 'public.authz.refresh-per-client',
      rules: ['spec:public:requestToken#/x-token-rules', 'seed:public › Authentication'],
      name: "client B presenting client A's refresh token gets invalid_grant",
      async run(ctx) {
        const { as, a, b } = await twoClients(ctx);
        const tokens = await exchangeCode(ctx, await authorizationCode(ctx, { scope, as, client: a }));
        expectInvalidGrant(
          await tokenRequest(ctx, as, {
            grant_type: 'refresh_token',
            refresh_token: tokens.refreshToken,
            client_id: b.client_id,
          }),
          "client B presenting client A's refresh token",
        );
      },
    },
    {
      id: 'public.authz.idempotency-per-grant',
      rules: ['spec:public#/components/parameters/IdempotencyKey'],
      name: 'an Idempotency-Key used under one grant is a fresh key under another grant and without a token: never the stored answer, never a conflict',
      async run(ctx) {
        const { as, a, b } = await twoClients(ctx);
        const tokenA = (await exchangeCode(ctx, await authorizationCode(ctx, { scope, as, client: a }))).accessToken;
        const tokenB = (await exchangeCode(ctx, await authorizationCode(ctx, { scope, as, client: b }))).accessToken;
        const key = randomUUID();
        const search = (q: string, bearer?: string) =>
          callPublic(ctx, 'searchDomain', {
            json: { q },
            headers: { 'idempotency-key': key },
            ...(bearer ? { bearer } : {}),
            deliberate: true,
          });
        const first = await search('bestcoffeebeans.com', tokenA);
        expect(first.status === 200, `a search with a new Idempotency-Key under grant A answered ${first.status}`, [
          first,
        ]);
        expectPublicCode(
          ctx,
          await search('brewhouse.io', tokenA),
          'conflict',
          'the same key with another body under the same grant (the control)',
        );
        for (const [who, bearer] of [
          ['grant B', tokenB],
          ['no token (the client address)', undefined],
        ] as const) {
          const other = await search('brewhouse.io', bearer);
          expect(
            other.status === 200 && other.responseHeaders['idempotent-replayed'] !== 'true',
            `grant A's key used by ${who} with another body answered ${other.status}${other.responseHeaders['idempotent-replayed'] === 'true' ? ' (a replay)' : ''}; it is that client's first use of the key`,
            [first, other],
          );
        }
      },
    },
  ],
};
