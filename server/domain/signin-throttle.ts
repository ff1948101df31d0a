/**
 * Sign-in throttling (the sign-in form's `x-signin-throttle`): failed password attempts are
 * counted per account and per client address, and past a free allowance each further attempt
 * has to wait, for longer after every failure (1, 2, 4, 8 minutes, then 15 at most). A correct
 * password clears the account's count. An account that does not exist is counted exactly like
 * one that does, so neither the answers nor the waits tell which addresses have accounts.
 *
 * The rule is pure: the store keeps `{ failures, lastFailureAt }` per key and applies it
 * atomically (store/signin-throttle.ts), with the waits below as a SQL CASE.
 */
export interface ThrottleRule {
  /** Failed attempts allowed before the first wait. */
  readonly free: number;
  /** The wait after failure `free`, `free + 1`, …; the last one repeats. ms. */
  readonly waitsMs: readonly number[];
  /** A count is forgotten this long after its last failure. ms. */
  readonly forgetAfterMs: number;
}

const MINUTE = 60_000;
const WAITS = [1, 2, 4, 8, 15].map((m) => m * MINUTE);
const DAY = 24 * 60 * MINUTE;

export const SIGNIN_THROTTLE = {
  /** Per account (the email as entered, normalised; existing or not). */
  account: { free: 5, waitsMs: WAITS, forgetAfterMs: DAY },
  /** Per client address (an IPv6 address by its /64): looser, as many users may share one. */
  address: { free: 20, waitsMs: WAITS, forgetAfterMs: DAY },
} as const satisfies Record<string, ThrottleRule>;

/**
 * Wrong operator tokens on the admin API (the admin document's "No rate limit; wrong tokens are throttled"), per
 * client address only: the same waits, after 10 free failures. There is one account (the
 * operator), so a count per account would let anyone lock the operator out.
 */
export const OPERATOR_TOKEN_THROTTLE = {
  address: { free: 10, waitsMs: WAITS, forgetAfterMs: DAY },
} as const satisfies Record<string, ThrottleRule>;

/** How long, after the last of `failures` failed attempts, the next attempt has to wait (ms). */
export function waitAfter(rule: ThrottleRule, failures: number): number {
  if (failures < rule.free) return 0;
  const waits = rule.waitsMs;
  return waits[Math.min(failures - rule.free, waits.length - 1)] ?? 0;
}

/**
 * `failures` that count at `now`: none once the last failure is older than `forgetAfterMs`.
 * The waits only depend on this count, so a lock ends by itself.
 */
export function countingFailures(
  rule: ThrottleRule,
  state: { failures: number; lastFailureAt: number } | undefined,
  now: number,
): number {
  if (!state || now - state.lastFailureAt >= rule.forgetAfterMs) return 0;
  return state.failures;
}

/** When the next attempt may be made (ms); `now` or earlier means at once. */
export function nextAttemptAt(
  rule: ThrottleRule,
  state: { failures: number; lastFailureAt: number } | undefined,
  now: number,
): number {
  const failures = countingFailures(rule, state, now);
  return failures === 0 || !state ? now : state.lastFailureAt + waitAfter(rule, failures);
}

/**
 * The address a throttle counts: IPv4 as is (an IPv4-mapped IPv6 address as its IPv4), IPv6 by
 * its first 64 bits, which one subscriber usually holds whole.
 */
export function throttledAddress(address: string | undefined): string {
  if (!address) return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1] as string;
  if (!address.includes(':')) return address;
  const [head = '', tail = ''] = address.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = address.includes('::')
    ? [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
