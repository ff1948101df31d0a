// The one rate-limit step (server/http/rate-limit.ts): classes from the operation, buckets from
// the surface's bucketOf, quotas from limitOf, headers on every answer, 429 past the quota.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../server/clock.ts';
import { ApiContract } from '../../server/contract/index.ts';
import { errorHandler } from '../../server/http/errors.ts';
import { matchOperation } from '../../server/http/match-operation.ts';
import { rateLimit, type RateLimitOptions } from '../../server/http/rate-limit.ts';

const contract = new ApiContract('public', {
  paths: {
    '/search': { get: { operationId: 'search', 'x-rate-limit': 'search' } },
    '/write': { post: { operationId: 'write', 'x-rate-limit': 'write' } },
  },
});
const classes = {
  search: { quota: 3, windowSeconds: 60 },
  write: { quota: 1, windowSeconds: 10 },
  other: { quota: 2, windowSeconds: 60 },
};

/** A window counter as the store keeps one (server/store/replay-guard.ts), in memory. */
function memoryCounter() {
  const windows = new Map<string, { count: number; windowStart: number }>();
  const buckets: string[] = [];
  return {
    buckets,
    hit: async (bucket: string, now: number, windowMs: number) => {
      buckets.push(bucket);
      const w = windows.get(bucket);
      const next =
        !w || now >= w.windowStart + windowMs
          ? { count: 1, windowStart: now }
          : { count: w.count + 1, windowStart: w.windowStart };
      windows.set(bucket, next);
      return next;
    },
  };
}

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

async function serve(options: Partial<RateLimitOptions> & Pick<RateLimitOptions, 'counter'>): Promise<string> {
  const app = express();
  app.use(
    matchOperation(contract),
    rateLimit({
      classes,
      unmatchedClass: 'other',
      clock: manualClock(),
      bucketOf: (req, _res, className) => `${req.get('x-caller') ?? 'anon'}:${className}`,
      ...options,
    }),
    (_req, res) => void res.json({}),
  );
  app.use(errorHandler(() => {}));
  server = createServer(app);
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('the rate-limit step', () => {
  it('counts each call in the bucket bucketOf names, in the class of its operation, and refuses past the quota with Retry-After', async () => {
    const counter = memoryCounter();
    const base = await serve({ counter });
    const call = (path: string, caller: string, method = 'GET') =>
      fetch(`${base}${path}`, { method, headers: { 'x-caller': caller } });
    for (let i = 0; i < 3; i++) expect((await call('/search', 'a')).status).toBe(200);
    const refused = await call('/search', 'a');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('ratelimit-policy')).toBe('"search";q=3;w=60');
    expect((await refused.json()).code).toBe('rate_limited');
    // Another caller has its own window; another class too.
    expect((await call('/search', 'b')).headers.get('ratelimit-remaining')).toBe('2');
    expect((await call('/write', 'a', 'POST')).headers.get('ratelimit')).toBe('"write";r=0;t=10');
    // An unknown path counts against the unmatched class.
    expect((await call('/nowhere', 'a')).headers.get('ratelimit-policy')).toBe('"other";q=2;w=60');
    expect(counter.buckets).toEqual(['a:search', 'a:search', 'a:search', 'a:search', 'b:search', 'a:write', 'a:other']);
  });

  it('without an unmatched class (the partner API), counts no request that matched no operation and sends no headers', async () => {
    const counter = memoryCounter();
    const base = await serve({ counter, unmatchedClass: undefined });
    for (let i = 0; i < 3; i++) {
      const r = await fetch(`${base}/nowhere`, { headers: { 'x-caller': 'a' } });
      // Passed on to the next step (the surface's 404), not refused here.
      expect(r.status).toBe(200);
      expect(r.headers.get('ratelimit-policy')).toBeNull();
    }
    expect((await fetch(`${base}/search`, { headers: { 'x-caller': 'a' } })).headers.get('ratelimit-remaining')).toBe(
      '2',
    );
    expect(counter.buckets).toEqual(['a:search']);
  });

  it('takes the quota limitOf gives', async () => {
    const base = await serve({ counter: memoryCounter(), limitOf: () => 1 });
    expect((await fetch(`${base}/search`)).headers.get('ratelimit-limit')).toBe('1');
    expect((await fetch(`${base}/search`)).status).toBe(429);
  });

  it('refuses, when built, an unmatched class the document lacks', () => {
    expect(() =>
      rateLimit({
        classes,
        unmatchedClass: 'nope',
        counter: memoryCounter(),
        clock: manualClock(),
        bucketOf: () => 'x',
      }),
    ).toThrow(/nope/);
  });
});
