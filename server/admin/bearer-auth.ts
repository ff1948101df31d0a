// The operator API's authentication: `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant
// time (the admin document's "Authentication" paragraph), and wrong tokens throttled per client
// address (its "No rate limit; wrong tokens are throttled", server/admin/token-throttle.ts).
import { timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { ApiError } from '../http/errors.ts';
import type { TokenThrottle } from './token-throttle.ts';

export function bearerAuth(token: string, throttle: TokenThrottle): RequestHandler {
  const expected = Buffer.from(token, 'utf8');
  return (req, res, next) => {
    const header = req.get('authorization') ?? '';
    // The scheme is case-insensitive (RFC 9110 §11.1), the admin document says so.
    const match = /^bearer +(\S+) *$/i.exec(header);
    if (!match?.[1]) {
      // No token is no guess: not counted.
      res.setHeader('WWW-Authenticate', 'Bearer');
      return next(new ApiError('missing_credentials', 'The operator API needs Authorization: Bearer <ADMIN_TOKEN>'));
    }
    const given = Buffer.from(match[1], 'utf8');
    const right = given.length === expected.length && timingSafeEqual(given, expected);
    const address = req.socket.remoteAddress;
    (right ? throttle.right(address) : throttle.wrong(address)).then((verdict) => {
      if (!verdict.admitted) {
        const wait = verdict.retryAfterSeconds;
        return next(
          new ApiError(
            'rate_limited',
            `Too many wrong operator tokens from this address; wait ${wait} s before trying again`,
            undefined,
            { 'Retry-After': String(wait) },
          ),
        );
      }
      if (right) return next();
      res.setHeader('WWW-Authenticate', 'Bearer error="invalid_token"');
      next(new ApiError('invalid_token', 'The bearer token is not the operator token'));
    }, next);
  };
}
