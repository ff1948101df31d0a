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

/** One window's decision on a call counted `counted.count`-th in its window. */
function decided(
  window: { name: string; limit: number; windowSeconds: number },
  now: number,
  { count, windowStart }: Counted,
) {
  const decision = decideRateLimit({
    limit: window.limit,
    windowSeconds: window.windowSeconds,
    now,
    count: count - 1,
    windowStart: count === 1 ? undefined : windowStart,
  });
  // Written out, not `{ ...window, decision }` (replay-guard.ts `admit` says why).
  return { name: window.name, limit: window.limit, windowSeconds: window.windowSeconds, decision };
}

type Shown = ReturnType<typeof decided>;

/** Sends a decision's headers (not yet `Retry-After`: only a refusal has it); gives the refusal's `Retry-After`. */
function sendHeaders(res: Response, shown: Shown): string {
  const headers = rateLimitHeaders(shown.name, shown, shown.decision);
  if (!res.headersSent)
    for (const name in headers) if (name !== 'Retry-After') res.setHeader(name, headers[name] as string);
  return headers['Retry-After'] ?? '1';
}

export function rateLimit(options: RateLimitOptions): RequestHandler {
  // Checked once, at start-up: a missing class would otherwise be a 500 on the first request.
  if (options.unmatchedClass !== undefined) rateLimitClassOf(options.classes, undefined, options.unmatchedClass);
  // The ceiling over each class that has one, found once (a class's `ceiling-of`).
  const ceilings = new Map<string, { name: string; limit: number; windowSeconds: number }>();
  for (const [name, c] of Object.entries(options.classes))
    if (c.ceilingOf) ceilings.set(c.ceilingOf, { name, limit: c.quota, windowSeconds: c.windowSeconds });
  /** One window's decision on this call: counted in `bucket` now, or by authentication already (`counted`). */
  const decide = async (
    window: { name: string; limit: number; windowSeconds: number },
    bucket: string,
    counted: Counted | undefined,
  ) => {
    const now = options.clock.now();
    return decided(window, now, counted ?? (await options.counter.hit(bucket, now, window.windowSeconds * 1000)));
  };
  const refusal = (shown: Shown, retryAfter: string) =>
    new ApiError(
      'rate_limited',
      `Rate limit "${shown.name}" of ${shown.limit} requests per ${shown.windowSeconds} s exceeded; retry in ${retryAfter} s`,
      undefined,
      { 'Retry-After': retryAfter },
    );
  return (req, res, next) => {
    if (!res.locals.operation && options.unmatchedClass === undefined) {
      next();
      return;
    }
    const cls = rateLimitClassOf(options.classes, res.locals.operation?.rateClass, options.unmatchedClass);
    const limit = options.limitOf?.(res, cls.name, cls) ?? cls.quota;
    const own = { name: cls.name, limit, windowSeconds: cls.windowSeconds };
    const ceiling = ceilings.get(cls.name);
    const counted = res.locals.counted;
    // The partner surface's every call: counted with its nonce by authentication already, and no
    // ceiling over its class. Decided here and now, without a promise or a turn of the event loop.
    if (counted && !ceiling && !options.furtherCalls) {
      const shown = decided(own, options.clock.now(), counted);
      const retryAfter = sendHeaders(res, shown);
      next(shown.decision.allowed ? undefined : refusal(shown, retryAfter));
      return;
    }
    return counting(req, res, next, own, ceiling, counted);
  };

  async function counting(
    req: Request,
    res: Response,
    next: (err?: unknown) => void,
    own: { name: string; limit: number; windowSeconds: number },
    ceiling: { name: string; limit: number; windowSeconds: number } | undefined,
    counted: Counted | undefined,
  ): Promise<void> {
    try {
      const bucket = options.bucketOf(req, res, own.name);
      const ceilingBucket = ceiling ? options.ceilingBucketOf?.(req, res, ceiling.name) : undefined;
      const take = async (already: Counted | undefined) => {
        // Authentication may have counted the request already, with its nonce, in the same write.
        let shown = await decide(own, bucket, already);
        if (shown.decision.allowed && ceiling && ceilingBucket) {
          const over = await decide(ceiling, ceilingBucket, undefined);
          if (!over.decision.allowed || over.decision.remaining < shown.decision.remaining) shown = over;
        }
        return { shown, retryAfter: sendHeaders(res, shown) };
      };
      const first = await take(counted);
      if (options.furtherCalls)
        res.locals.publicCalls = { take: async () => (await take(undefined)).shown.decision.allowed };
      next(first.shown.decision.allowed ? undefined : refusal(first.shown, first.retryAfter));
    } catch (err) {
      next(err);
    }
  }
}
