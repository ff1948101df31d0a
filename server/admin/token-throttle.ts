// Throttling wrong operator tokens (the admin document's "No rate limit; wrong tokens are throttled"): counted per
// client address (an IPv6 address by its /64) in the sign-in throttle's table, with its waits
// (server/domain/signin-throttle.ts). A wrong token is counted, or refused while the address must
// wait; a right token clears the address's count, or is refused alike while it must wait, so the
// answer never tells a right token from a wrong one then. Only the address that failed waits: the
// operator elsewhere is never held back by another address's failures.
import { OPERATOR_TOKEN_THROTTLE, throttledAddress } from '../domain/signin-throttle.ts';
import type { Store } from '../store/index.ts';

export interface TokenThrottleDeps {
  store: Pick<Store, 'signinThrottle'>;
  now: () => number;
}

export type TokenVerdict = { admitted: true } | { admitted: false; retryAfterSeconds: number };

export interface TokenThrottle {
  /** A request with the right token from `address`. */
  right(address: string | undefined): Promise<TokenVerdict>;
  /** A request with a wrong token from `address`. */
  wrong(address: string | undefined): Promise<TokenVerdict>;
}

export function tokenThrottle(deps: TokenThrottleDeps): TokenThrottle {
  const repo = deps.store.signinThrottle;
  const rule = OPERATOR_TOKEN_THROTTLE.address;
  // Keys of their own: sign-in failures and operator-token failures never count against each other.
  const keyOf = (address: string | undefined) => `operator:${throttledAddress(address)}`;
  const verdict = (attempt: Awaited<ReturnType<typeof repo.attempt>>, now: number): TokenVerdict =>
    attempt.counted
      ? { admitted: true }
      : { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil((attempt.nextAttemptAt - now) / 1000)) };
  return {
    async right(address) {
      const now = deps.now();
      return verdict(await repo.clearUnlessWaiting(keyOf(address), rule, now), now);
    },
    async wrong(address) {
      const now = deps.now();
      return verdict(await repo.attempt(keyOf(address), rule, now), now);
    },
  };
}
