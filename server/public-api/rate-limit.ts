// Whose window a public call counts in (the public document's `x-rate-limit-classes`, each
// class's `per`): `caller` is the authorization grant behind a valid bearer token (its client and
// user), else the client's address (an IPv6 address by its /64 too: counted per /128, one
// subscriber's /64 would be an endless supply of anonymous windows); `address` is the client's address whatever token is sent (an
// IPv6 address by its /64, which one subscriber usually holds whole); `user` is the signed-in
// user behind a valid bearer token, across every client they authorised (a ceiling, `ceiling-of`,
// so registering more clients never multiplies a user's budget). Never the token string: a
// refresh, a second consent of the same user to the same client or several live tokens would each
// open a fresh window. The step itself is the one every surface uses (server/http/rate-limit.ts);
// a batch takes one more call per entry through `res.locals.publicCalls`.
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import type { RateLimitClass } from '../domain/rate-limit.ts';
import { throttledAddress } from '../domain/signin-throttle.ts';

declare module 'express-serve-static-core' {
  interface Locals {
    /** The bearer token sent, if any (verified or not). */
    bearerToken?: string;
  }
}

// Hashed so a bucket key (stored, and possibly logged) carries no user id; JSON keeps a pair unambiguous.
const digest = (parts: readonly string[]) => createHash('sha256').update(JSON.stringify(parts)).digest('base64url');

/** The bucket of a caller: the grant (client and user) of a token the pipeline found valid, else its address. */
export function callerBucket(res: Response, ip: string | undefined): string {
  const viewer = res.locals.viewer;
  if (viewer) return `grant:${digest([viewer.clientId, viewer.userId])}`;
  return `ip:${throttledAddress(ip)}`;
}

/** The public surface's `bucketOf` and `ceilingBucketOf`, by each class's `per`. */
export function publicBuckets(classes: Readonly<Record<string, RateLimitClass>>) {
  const per = (className: string) => classes[className]?.per ?? 'caller';
  return {
    bucketOf(req: Request, res: Response, className: string): string {
      const who =
        per(className) === 'address'
          ? `net:${throttledAddress(req.socket.remoteAddress)}`
          : callerBucket(res, req.socket.remoteAddress);
      return `public:${className}:${who}`;
    },
    /** A user's ceiling applies only to calls with a valid bearer token: without one there is no user. */
    ceilingBucketOf(_req: Request, res: Response, className: string): string | undefined {
      const viewer = res.locals.viewer;
      if (per(className) !== 'user' || !viewer) return undefined;
      return `public:${className}:user:${digest([viewer.userId])}`;
    },
  };
}
