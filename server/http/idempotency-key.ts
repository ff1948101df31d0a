// POST /orders without Idempotency-Key is refused before the body is validated (x-signing
// `check-order`). Which operations need the header is the contract index's `idempotencyKey`
// (a required Idempotency-Key header parameter in the spec).
import type { RequestHandler } from 'express';
import { ApiError } from './errors.ts';

export function requireIdempotencyKey(): RequestHandler {
  return (req, res, next) => {
    const op = res.locals.operation;
    if (op?.idempotencyKey === 'required' && !req.get('idempotency-key')) {
      return next(
        new ApiError(
          'missing_idempotency_key',
          `${op.method} ${op.path} requires an Idempotency-Key header (1 to 255 characters, one per logical operation)`,
        ),
      );
    }
    next();
  };
}
