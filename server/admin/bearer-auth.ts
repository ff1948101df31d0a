// The operator API's authentication: `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant
// time (the admin document's "Authentication" paragraph).
import { timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { ApiError } from '../http/errors.ts';

export function bearerAuth(token: string): RequestHandler {
  const expected = Buffer.from(token, 'utf8');
  return (req, res, next) => {
    const header = req.get('authorization') ?? '';
    // The scheme is case-insensitive (RFC 9110 §11.1), the admin document says so.
    const match = /^bearer +(\S+) *$/i.exec(header);
    if (!match?.[1]) {
      res.setHeader('WWW-Authenticate', 'Bearer');
      return next(new ApiError('missing_credentials', 'The operator API needs Authorization: Bearer <ADMIN_TOKEN>'));
    }
    const given = Buffer.from(match[1], 'utf8');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      res.setHeader('WWW-Authenticate', 'Bearer error="invalid_token"');
      return next(new ApiError('invalid_token', 'The bearer token is not the operator token'));
    }
    next();
  };
}
