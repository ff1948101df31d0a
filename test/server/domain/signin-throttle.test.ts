// The sign-in throttle's rule, against the numbers the contract states (x-signin-throttle of the
// sign-in form), and the address a throttle counts.
import { describe, expect, it } from 'vitest';
import {
  countingFailures,
  nextAttemptAt,
  SIGNIN_THROTTLE,
  throttledAddress,
  waitAfter,
} from '../../../server/domain/signin-throttle.ts';
import { at, loadYaml } from './spec.ts';

const THROTTLE = at(loadYaml('spec/public/paths/oauth-authorize.yaml'), 'post', 'x-signin-throttle') as Record<
  string,
  unknown
>;
const MINUTE = 60_000;

describe('the sign-in throttle rule', () => {
  it('has the free failures, waits and memory the contract states', () => {
    const waits = (THROTTLE['waits-minutes'] as number[]).map((m) => m * MINUTE);
    expect(SIGNIN_THROTTLE.account.free).toBe(at(THROTTLE, 'per-account', 'free-failures'));
    expect(SIGNIN_THROTTLE.address.free).toBe(at(THROTTLE, 'per-address', 'free-failures'));
    for (const rule of [SIGNIN_THROTTLE.account, SIGNIN_THROTTLE.address]) {
      expect(rule.waitsMs).toEqual(waits);
      expect(rule.forgetAfterMs).toBe((THROTTLE['forgotten-after-hours'] as number) * 60 * MINUTE);
    }
  });

  it('waits nothing within the free failures, then each wait in turn, the last one repeating', () => {
    const rule = SIGNIN_THROTTLE.account;
    expect([0, 1, 4].map((f) => waitAfter(rule, f))).toEqual([0, 0, 0]);
    expect([5, 6, 7, 8, 9, 10, 50].map((f) => waitAfter(rule, f) / MINUTE)).toEqual([1, 2, 4, 8, 15, 15, 15]);
  });

  it('counts from the last failure, and forgets a day after it', () => {
    const rule = SIGNIN_THROTTLE.account;
    const state = { failures: 6, lastFailureAt: 1_000_000 };
    expect(nextAttemptAt(rule, state, 1_000_000)).toBe(1_000_000 + 2 * MINUTE);
    expect(countingFailures(rule, state, 1_000_000 + rule.forgetAfterMs - 1)).toBe(6);
    expect(countingFailures(rule, state, 1_000_000 + rule.forgetAfterMs)).toBe(0);
    expect(nextAttemptAt(rule, undefined, 5)).toBe(5);
  });
});

describe('throttledAddress', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::9', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:aaaa::1', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    [undefined, 'unknown'],
  ])('counts %s as %s', (address, key) => expect(throttledAddress(address)).toBe(key));
});
