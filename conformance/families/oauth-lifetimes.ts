// The authorization code's lifetime (`x-token-lifetimes` of requestToken: authorization_code_seconds;
// seed: public › Authentication, "the code expires in 60 seconds"). Two codes are obtained one
// after the other; the first is exchanged while it is surely younger than the lifetime (answered
// before the lifetime had passed since its authorization began: it must work), the second once it
// is surely older (sent a lifetime and one second, the unit of the contract's lifetimes, after its
// code arrived: invalid_grant). The refresh token's 30 days cannot be waited out and the
// deployment has no clock to move for OAuth: that half is a stated exclusion.
import { expect, type Check } from '../context.ts';
import { sleep } from '../http.ts';
import { authorizationCode, discovered, exchangeCode, register, tokenRequest } from '../oauth-flow.ts';
import { expectOAuthError } from './oauth-support.ts';

const scope = 'pricing:read';

export const codeLifetimeChecks: Check[] = [
  {
    id: 'public.oauth.code-expiry',
    rules: ['spec:public:requestToken#/x-token-lifetimes', 'seed:public › Authentication'],
    needs: ['oauth-user'],
    name: 'an authorization code is exchanged while younger than x-token-lifetimes authorization_code_seconds, and is invalid_grant once older',
    async run(ctx) {
      const lifetime = ctx.spec.extension<{ authorization_code_seconds?: number }>(
        'public',
        'x-token-lifetimes',
        'requestToken',
      )?.authorization_code_seconds;
      expect(
        typeof lifetime === 'number' && lifetime > 0,
        'the contract states no x-token-lifetimes authorization_code_seconds',
      );
      const as = await discovered(ctx);
      const client = await register(ctx, as, scope);
      const startedA = Date.now();
      const young = await authorizationCode(ctx, { scope, as, client });
      const old = await authorizationCode(ctx, { scope, as, client });
      const arrivedB = Date.now();
      // Halfway through the first code's life: surely young if its answer comes before the lifetime ends.
      await sleep(startedA + (lifetime * 1000) / 2 - Date.now());
      try {
        await exchangeCode(ctx, young);
      } catch (err) {
        if (Date.now() < startedA + lifetime * 1000) throw err;
        ctx.log(
          `  the first code's exchange ended ${Math.round((Date.now() - startedA) / 1000)} s after its authorization began: too late to tell a short lifetime from a slow machine, not judged`,
        );
      }
      await sleep(arrivedB + (lifetime + 1) * 1000 - Date.now());
      const expired = await tokenRequest(ctx, as, {
        grant_type: 'authorization_code',
        code: old.code,
        redirect_uri: old.redirectUri,
        client_id: client.client_id,
        code_verifier: old.verifier,
      });
      expectOAuthError(
        expired,
        'invalid_grant',
        `a code exchanged ${Math.round((Date.now() - arrivedB) / 1000)} s after it was issued (its lifetime is ${lifetime} s)`,
      );
    },
  },
];
