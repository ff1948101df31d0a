// The sign-in form's throttle (x-signin-throttle of submitAuthorizeForm): every password attempt
// is counted against the account named and the client address before the password is checked,
// and refused while either must wait (server/domain/signin-throttle.ts has the rule). Account
// keys are keyed hashes of the normalised email, so the table names no address, and an email
// without an account is counted like any other: a refusal says nothing about who has one.
import { createHmac } from 'node:crypto';
import type { Request, Response } from 'express';
import { ApiError } from '../http/errors.ts';
import { SIGNIN_THROTTLE, throttledAddress } from '../domain/signin-throttle.ts';
import type { Store } from '../store/index.ts';
import { normaliseEmail } from './users.ts';

export interface SigninThrottleDeps {
  store: Pick<Store, 'signinThrottle'>;
  /** The authorization server's key; account keys are HMACs under it. */
  key: Uint8Array;
  now: () => number;
}

export type Admission =
  { admitted: true; accountKey: string; addressKey: string } | { admitted: false; retryAfterSeconds: number };

export interface SigninThrottle {
  /** Counts a password attempt, or refuses it with the seconds to wait. */
  admit(email: string, address: string | undefined): Promise<Admission>;
  /** The attempt's password was right: the account's count is cleared, the address's attempt taken back. */
  succeeded(admission: Extract<Admission, { admitted: true }>): Promise<void>;
}

export function signinThrottle(deps: SigninThrottleDeps): SigninThrottle {
  const repo = deps.store.signinThrottle;
  const wait = (until: number, now: number) => Math.max(1, Math.ceil((until - now) / 1000));
  return {
    async admit(email, address) {
      const now = deps.now();
      const accountKey = `account:${createHmac('sha256', deps.key)
        .update(`signin:${normaliseEmail(email)}`)
        .digest('base64url')}`;
      const addressKey = `address:${throttledAddress(address)}`;
      const byAddress = await repo.attempt(addressKey, SIGNIN_THROTTLE.address, now);
      if (!byAddress.counted) return { admitted: false, retryAfterSeconds: wait(byAddress.nextAttemptAt, now) };
      const byAccount = await repo.attempt(accountKey, SIGNIN_THROTTLE.account, now);
      if (!byAccount.counted) {
        await repo.succeeded(addressKey, false); // this attempt is not made: the address keeps its count
        return { admitted: false, retryAfterSeconds: wait(byAccount.nextAttemptAt, now) };
      }
      return { admitted: true, accountKey, addressKey };
    },
    async succeeded(admission) {
      await repo.succeeded(admission.accountKey, true);
      await repo.succeeded(admission.addressKey, false);
    },
  };
}

/** What the sign-in page says to a refused attempt: the same words for every account. */
export function throttledMessage(retryAfterSeconds: number): string {
  const minutes = Math.ceil(retryAfterSeconds / 60);
  return `Too many failed sign-in attempts. Wait ${minutes === 1 ? '1 minute' : `${minutes} minutes`} before trying again.`;
}

/**
 * Answers a refused attempt: 429 with `Retry-After`, the sign-in page again (`page`) for a
 * browser, or the `rate_limited` Error body for a client that prefers JSON.
 */
export function refuseThrottled(
  req: Request,
  res: Response,
  page: (message: string) => string,
  retryAfterSeconds: number,
): void {
  const message = throttledMessage(retryAfterSeconds);
  if (req.accepts(['text/html', 'application/json']) === 'application/json') {
    throw new ApiError('rate_limited', message, undefined, { 'Retry-After': String(retryAfterSeconds) });
  }
  res.status(429).setHeader('Retry-After', String(retryAfterSeconds));
  res.type('html').send(page(message));
}
