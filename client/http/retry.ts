// The retry policy both clients share: which failures are worth another attempt, and how long
// to wait before it. Pure decisions (shouldRetry, delayMs) are separate from the loop (withRetries)
// so they can be tested without a network or a clock.

export interface RetryOptions {
  /** Attempts in all, the first included. Default 4. */
  maxAttempts?: number;
  /** First back-off step in ms; it doubles per attempt. Default 250. */
  baseDelayMs?: number;
  /** Cap of one back-off step in ms. Default 8000. */
  maxDelayMs?: number;
  /** A Retry-After longer than this (seconds) is not waited for: the answer is returned. Default 60. */
  maxRetryAfterSeconds?: number;
}

export interface RetryPolicy extends Required<RetryOptions> {
  sleep: (ms: number) => Promise<void>;
  random: () => number;
}

export const defaultRetryPolicy = (options: RetryOptions = {}): RetryPolicy => ({
  maxAttempts: options.maxAttempts ?? 4,
  baseDelayMs: options.baseDelayMs ?? 250,
  maxDelayMs: options.maxDelayMs ?? 8000,
  maxRetryAfterSeconds: options.maxRetryAfterSeconds ?? 60,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  random: Math.random,
});

const TRANSIENT = new Set([500, 502, 503, 504]);

/**
 * Whether a request may be sent again after this outcome.
 * A 429 was not executed, so it is always safe to repeat. A 5xx or a network error may have
 * been executed, so only requests that are safe to repeat (idempotent methods, or a POST that
 * carries an Idempotency-Key) are retried. A 409 with Retry-After is the server saying the first
 * request with the same Idempotency-Key is still running: retrying replays its answer.
 */
export function shouldRetry(
  outcome: Response | 'network-error',
  request: { method: string; idempotent: boolean },
): boolean {
  const repeatable =
    request.idempotent || ['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'].includes(request.method.toUpperCase());
  if (outcome === 'network-error') return repeatable;
  if (outcome.status === 429) return true;
  if (outcome.status === 409) return request.idempotent && outcome.headers.has('retry-after');
  return repeatable && TRANSIENT.has(outcome.status);
}

/** Parses Retry-After (delta-seconds or an HTTP date) into seconds, or undefined. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  if (header === null) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/**
 * Milliseconds to wait before attempt `attempt + 1` (attempt counts from 1), or undefined when
 * the server asks for a wait longer than the policy accepts.
 * Exponential back-off with full jitter; a Retry-After from the server is honoured as a floor.
 */
export function delayMs(attempt: number, retryAfter: number | undefined, policy: RetryPolicy): number | undefined {
  if (retryAfter !== undefined && retryAfter > policy.maxRetryAfterSeconds) return undefined;
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  const jittered = Math.floor(policy.random() * ceiling);
  return Math.max(jittered, (retryAfter ?? 0) * 1000);
}

/**
 * Sends with `send(attempt)` until an outcome is final or attempts run out.
 * `send` builds a fresh request per attempt (the partner client re-signs each one).
 * A network error on the last attempt is rethrown.
 */
export async function withRetries(
  send: (attempt: number) => Promise<Response>,
  request: { method: string; idempotent: boolean },
  policy: RetryPolicy,
): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    let outcome: Response | 'network-error';
    let failure: unknown;
    try {
      outcome = await send(attempt);
    } catch (err) {
      if (!isNetworkError(err)) throw err;
      outcome = 'network-error';
      failure = err;
    }
    const last = attempt >= policy.maxAttempts;
    if (last || !shouldRetry(outcome, request)) {
      if (outcome === 'network-error') throw failure;
      return outcome;
    }
    const wait = delayMs(
      attempt,
      outcome === 'network-error' ? undefined : retryAfterSeconds(outcome.headers.get('retry-after')),
      policy,
    );
    if (wait === undefined) {
      if (outcome === 'network-error') throw failure;
      return outcome;
    }
    if (outcome !== 'network-error') await outcome.body?.cancel();
    await policy.sleep(wait);
  }
}

/**
 * fetch rejects with a TypeError for network failures and a TimeoutError when a per-attempt
 * timeout fires. An AbortError is the caller cancelling, so it is never retried.
 */
function isNetworkError(err: unknown): boolean {
  return err instanceof TypeError || (err instanceof Error && err.name === 'TimeoutError');
}
