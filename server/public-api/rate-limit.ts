// Whose window a public call counts in (the public document's `x-rate-limit-classes`): the
// authorization grant behind a valid bearer token (its client and user), else the client's
// address. Never the token string: a refresh, a second consent of the same user to the same
// client or several live tokens would each open a fresh window. The step itself is the one every
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

/** The bucket of a caller: the grant (client and user) of a token the pipeline found valid, else its address. */
export function callerBucket(res: Response, ip: string | undefined): string {
  const viewer = res.locals.viewer;
  if (viewer) {
    // Hashed so the bucket key (stored, and possibly logged) carries no user id; JSON keeps the pair unambiguous.
    const grant = createHash('sha256')
      .update(JSON.stringify([viewer.clientId, viewer.userId]))
      .digest('base64url');
    return `grant:${grant}`;
  }
  return `ip:${ip ?? 'unknown'}`;
}

/** The public surface's `bucketOf`: per class, per caller. */
export const publicBucketOf = (req: Request, res: Response, className: string): string =>
  `public:${className}:${callerBucket(res, req.socket.remoteAddress)}`;
