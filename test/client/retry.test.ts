import { describe, expect, it } from 'vitest';
import {
  defaultRetryPolicy,
  delayMs,
  retryAfterSeconds,
  shouldRetry,
  withRetries,
  type RetryPolicy,
} from '../../client/http/retry.ts';

const res = (status: number, headers: Record<string, string> = {}) => new Response(null, { status, headers });
const get = { method: 'GET', idempotent: false };
const post = { method: 'POST', idempotent: false };
const keyedPost = { method: 'POST', idempotent: true };

/** A policy whose sleeps are recorded instead of waited, and whose jitter is fixed. */
function recordingPolicy(overrides: Partial<RetryPolicy> = {}): RetryPolicy & { slept: number[] } {
  const slept: number[] = [];
  return { ...defaultRetryPolicy(), random: () => 0.5, sleep: async (ms) => void slept.push(ms), ...overrides, slept };
}

describe('shouldRetry', () => {
  it('retries 429 whatever the method', () => {
    expect(shouldRetry(res(429), post)).toBe(true);
  });
  it.each([500, 502, 503, 504])('retries %i only when the request is safe to repeat', (status) => {
    expect(shouldRetry(res(status), get)).toBe(true);
    expect(shouldRetry(res(status), keyedPost)).toBe(true);
    expect(shouldRetry(res(status), post)).toBe(false);
  });
  it.each([200, 201, 400, 401, 403, 404, 422, 501])('never retries %i', (status) => {
    expect(shouldRetry(res(status), get)).toBe(false);
  });
  it('retries a 409 with Retry-After only for a keyed request (the first one is still running)', () => {
    expect(shouldRetry(res(409, { 'retry-after': '1' }), keyedPost)).toBe(true);
    expect(shouldRetry(res(409), keyedPost)).toBe(false);
    expect(shouldRetry(res(409, { 'retry-after': '1' }), post)).toBe(false);
  });
  it('retries network errors only when safe to repeat', () => {
    expect(shouldRetry('network-error', get)).toBe(true);
    expect(shouldRetry('network-error', post)).toBe(false);
  });
});

describe('retryAfterSeconds', () => {
  it('reads delta-seconds and HTTP dates', () => {
    expect(retryAfterSeconds('12')).toBe(12);
    expect(retryAfterSeconds('Sun, 22 Nov 2026 10:00:30 GMT', Date.parse('2026-11-22T10:00:00Z'))).toBe(30);
    expect(retryAfterSeconds(null)).toBeUndefined();
    expect(retryAfterSeconds('soon')).toBeUndefined();
  });
});

describe('delayMs', () => {
  const policy = recordingPolicy({ random: () => 0.999 });
  it('doubles per attempt up to the cap', () => {
    expect(delayMs(1, undefined, policy)).toBe(249);
    expect(delayMs(2, undefined, policy)).toBe(499);
    expect(delayMs(10, undefined, policy)).toBe(7992);
  });
  it('waits at least Retry-After, and gives up beyond the accepted maximum', () => {
    expect(delayMs(1, 3, policy)).toBe(3000);
    expect(delayMs(1, 61, policy)).toBeUndefined();
  });
});

describe('withRetries', () => {
  it('resends until a final answer and builds a fresh request per attempt', async () => {
    const policy = recordingPolicy();
    const statuses = [503, 502, 200];
    const attempts: number[] = [];
    const response = await withRetries(async (n) => (attempts.push(n), res(statuses[n - 1] ?? 500)), get, policy);
    expect(response.status).toBe(200);
    expect(attempts).toEqual([1, 2, 3]);
    expect(policy.slept).toEqual([125, 250]);
  });

  it('honours Retry-After on 429', async () => {
    const policy = recordingPolicy();
    const response = await withRetries(
      async (n) => (n === 1 ? res(429, { 'retry-after': '2' }) : res(200)),
      post,
      policy,
    );
    expect(response.status).toBe(200);
    expect(policy.slept).toEqual([2000]);
  });

  it('stops after maxAttempts and returns the last answer', async () => {
    const policy = recordingPolicy({ maxAttempts: 3 });
    let calls = 0;
    const response = await withRetries(async () => (calls++, res(503)), get, policy);
    expect(response.status).toBe(503);
    expect(calls).toBe(3);
  });

  it('rethrows a network error once attempts run out, and does not retry an unsafe POST', async () => {
    const policy = recordingPolicy({ maxAttempts: 2 });
    let calls = 0;
    const fail = async () => {
      calls++;
      throw new TypeError('fetch failed');
    };
    await expect(withRetries(fail, get, policy)).rejects.toThrow('fetch failed');
    expect(calls).toBe(2);
    calls = 0;
    await expect(withRetries(fail, post, policy)).rejects.toThrow('fetch failed');
    expect(calls).toBe(1);
  });

  it('does not retry a caller abort', async () => {
    const policy = recordingPolicy();
    let calls = 0;
    const abort = async () => {
      calls++;
      throw new DOMException('aborted', 'AbortError');
    };
    await expect(withRetries(abort, get, policy)).rejects.toThrow('aborted');
    expect(calls).toBe(1);
  });
});
