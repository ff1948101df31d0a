// The public rate limit (the public document's `x-rate-limit-classes`): one class for every operation, counted per bearer token
// when a valid one is sent, else per client IP. Every answer carries the headers, 401s included,
// and a batch takes one more call per entry through `res.locals.publicCalls`.
import { createHash } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import type { Clock } from '../clock.ts';
import { decideRateLimit, rateLimitHeaders, type RateLimitClass } from '../domain/rate-limit.ts';
import { ApiError } from '../http/errors.ts';
import type { ReplayGuardRepository } from '../store/replay-guard.ts';

export interface PublicRateLimitDeps {
  classes: Record<string, RateLimitClass>;
  replayGuard: Pick<ReplayGuardRepository, 'hit'>;
  clock: Clock;
}

declare module 'express-serve-static-core' {
  interface Locals {
    /** The bearer token sent, if any (verified or not). */
    bearerToken?: string;
  }
}

/** The bucket of a caller: its token when the pipeline found the token valid, else its address. */
export function callerBucket(res: Response, ip: string | undefined): string {
  if (res.locals.viewer && res.locals.bearerToken) return `token:${createHash('sha256').update(res.locals.bearerToken).digest('base64url')}`;
  return `ip:${ip ?? 'unknown'}`;
}

export function publicRateLimit(deps: PublicRateLimitDeps): RequestHandler {
  return async (req, res, next) => {
    try {
      const className = res.locals.operation?.rateLimit ?? 'public';
      const cls = deps.classes[className];
      if (!cls) throw new Error(`Unknown rate-limit class "${className}"`);
      const bucket = `public:${className}:${callerBucket(res, req.socket.remoteAddress)}`;
      const take = async () => {
        const now = deps.clock.now();
        const { count, windowStart } = await deps.replayGuard.hit(bucket, now, cls.windowSeconds * 1000);
        const decision = decideRateLimit({ limit: cls.quota, windowSeconds: cls.windowSeconds, now, count: count - 1, windowStart: count === 1 ? undefined : windowStart });
        const headers = rateLimitHeaders(className, { limit: cls.quota, windowSeconds: cls.windowSeconds }, decision);
        if (!res.headersSent) for (const [name, value] of Object.entries(headers)) if (name !== 'Retry-After') res.setHeader(name, value);
        return { allowed: decision.allowed, retryAfter: headers['Retry-After'] ?? '1' };
      };
      const first = await take();
      res.locals.publicCalls = { take: async () => (await take()).allowed };
      if (!first.allowed) {
        throw new ApiError('rate_limited', `Rate limit of ${cls.quota} requests per ${cls.windowSeconds} s exceeded; retry in ${first.retryAfter} s`, undefined, {
          'Retry-After': first.retryAfter,
        });
      }
      next();
    } catch (err) {
      next(err);
    }
  };
}
