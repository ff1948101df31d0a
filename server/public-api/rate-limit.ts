// Whose window a public call counts in (the public document's `x-rate-limit-classes`): the bearer
// token when a valid one was sent, else the client's address. The step itself is the one every
// surface uses (server/http/rate-limit.ts); a batch takes one more call per entry through
// `res.locals.publicCalls`.
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';

declare module 'express-serve-static-core' {
  interface Locals {
    /** The bearer token sent, if any (verified or not). */
    bearerToken?: string;
  }
}

/** The bucket of a caller: its token when the pipeline found the token valid, else its address. */
export function callerBucket(res: Response, ip: string | undefined): string {
  if (res.locals.viewer && res.locals.bearerToken)
    return `token:${createHash('sha256').update(res.locals.bearerToken).digest('base64url')}`;
  return `ip:${ip ?? 'unknown'}`;
}

/** The public surface's `bucketOf`: per class, per caller. */
export const publicBucketOf = (req: Request, res: Response, className: string): string =>
  `public:${className}:${callerBucket(res, req.socket.remoteAddress)}`;
