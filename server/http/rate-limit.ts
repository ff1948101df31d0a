// The rate-limit step of every surface that counts calls (the partner and public APIs): the
// operation's class (`x-rate-limit`; on a surface that counts them, the class of unknown paths
// when none matched, else such a request is not counted and carries no headers), the count in
// the caller's window (kept by the store, server/store/replay-guard.ts), the decision and its
// headers (server/domain/rate-limit.ts), and a 429 `rate_limited` with `Retry-After` past the
// quota. Surfaces differ only in whose bucket a call counts against (`bucketOf`) and its quota
// (`limitOf`). Every answer from here on carries the headers, refusals included. A class may
// have a ceiling (a class whose `ceiling-of` names it, bucketed by `ceilingBucketOf`): an
// admitted call then counts in that window too, the call passes only if both admit it, and the
// answer reports whichever window has fewer calls left (the refusing one on a 429).
import type { Request, RequestHandler, Response } from 'express';
import type { Clock } from '../clock.ts';
import { decideRateLimit, rateLimitClassOf, rateLimitHeaders, type RateLimitClass } from '../domain/rate-limit.ts';
import type { Counted, ReplayGuardRepository } from '../store/replay-guard.ts';
import { ApiError } from './errors.ts';

export interface RateLimitOptions {
  /** The document's `x-rate-limit-classes`. */
  classes: Readonly<Record<string, RateLimitClass>>;
  /**
   * The class a request that matched no operation counts against (the public API: per client,
   * unknown paths included). Absent (the partner API): such a request is not counted and gets its
   * 404 or 405 without rate-limit headers, so a mistyped path costs a credential none of its budget.
   */
  unmatchedClass?: string;
  counter: Pick<ReplayGuardRepository, 'hit'>;
  clock: Clock;
  /** Whose window a call counts in, e.g. `<key id>:<class>`. */
  bucketOf(req: Request, res: Response, className: string): string;
  /** The caller's quota for a class; the class's own by default. */
  limitOf?(res: Response, className: string, cls: RateLimitClass): number;
  /** Whether a handler may take further calls of the same bucket (a batch takes one per entry: `res.locals.publicCalls`). */
  furtherCalls?: boolean;
  /** The bucket of the ceiling class over `className`, when one applies to this caller. */
  ceilingBucketOf?(req: Request, res: Response, ceilingClass: string): string | undefined;
}

/** Counts further calls against the caller's rate limit (a batch counts one per entry). */
export interface FurtherCalls {
  /** Takes one more call; false when the caller's quota is spent (the response headers follow). */
  take(): Promise<boolean>;
}

declare module 'express-serve-static-core' {
  interface Locals {
    publicCalls?: FurtherCalls;
  }
}

/** One window's decision on this call: counted in `bucket` now, or by authentication already (`counted`). */
async function decide(
  options: Pick<RateLimitOptions, 'counter' | 'clock'>,
  window: { name: string; limit: number; windowSeconds: number },
  bucket: string,
  counted: Counted | undefined,
) {
  const now = options.clock.now();
  const { count, windowStart } = counted ?? (await options.counter.hit(bucket, now, window.windowSeconds * 1000));
  const decision = decideRateLimit({
    limit: window.limit,
    windowSeconds: window.windowSeconds,
    now,
    count: count - 1,
    windowStart: count === 1 ? undefined : windowStart,
  });
  return { ...window, decision };
}

export function rateLimit(options: RateLimitOptions): RequestHandler {
  // Checked once, at start-up: a missing class would otherwise be a 500 on the first request.
  if (options.unmatchedClass !== undefined) rateLimitClassOf(options.classes, undefined, options.unmatchedClass);
  // The ceiling over each class that has one, found once (a class's `ceiling-of`).
  const ceilings = new Map<string, { name: string; limit: number; windowSeconds: number }>();
  for (const [name, c] of Object.entries(options.classes))
    if (c.ceilingOf) ceilings.set(c.ceilingOf, { name, limit: c.quota, windowSeconds: c.windowSeconds });
  return async (req, res, next) => {
    try {
      if (!res.locals.operation && options.unmatchedClass === undefined) {
        next();
        return;
      }
      const cls = rateLimitClassOf(options.classes, res.locals.operation?.rateClass, options.unmatchedClass);
      const limit = options.limitOf?.(res, cls.name, cls) ?? cls.quota;
      const bucket = options.bucketOf(req, res, cls.name);
      const ceiling = ceilings.get(cls.name);
      const ceilingBucket = ceiling ? options.ceilingBucketOf?.(req, res, ceiling.name) : undefined;
      const own = { name: cls.name, limit, windowSeconds: cls.windowSeconds };
      const take = async (counted: Counted | undefined) => {
        // Authentication may have counted the request already, with its nonce, in the same write.
        let shown = await decide(options, own, bucket, counted);
        if (shown.decision.allowed && ceiling && ceilingBucket) {
          const over = await decide(options, ceiling, ceilingBucket, undefined);
          if (!over.decision.allowed || over.decision.remaining < shown.decision.remaining) shown = over;
        }
        const headers = rateLimitHeaders(shown.name, shown, shown.decision);
        if (!res.headersSent)
          for (const [name, value] of Object.entries(headers)) if (name !== 'Retry-After') res.setHeader(name, value);
        return { ...shown, allowed: shown.decision.allowed, retryAfter: headers['Retry-After'] ?? '1' };
      };
      const first = await take(res.locals.counted);
      if (options.furtherCalls) res.locals.publicCalls = { take: async () => (await take(undefined)).allowed };
      if (!first.allowed) {
        throw new ApiError(
          'rate_limited',
          `Rate limit "${first.name}" of ${first.limit} requests per ${first.windowSeconds} s exceeded; retry in ${first.retryAfter} s`,
          undefined,
          {
            'Retry-After': first.retryAfter,
          },
        );
      }
      next();
    } catch (err) {
      next(err);
    }
  };
}
