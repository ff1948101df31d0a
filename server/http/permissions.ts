// Partner permissions: the credential's standing (a live credential needs approval), then the
// scopes the operation declares (`x-scopes`). Runs after the unmatched-route answer, so an
// operation is always there.
import type { RequestHandler } from 'express';
import { ApiError } from './errors.ts';

export function partnerPermissions(): RequestHandler {
  return (_req, res, next) => {
    const credential = res.locals.credential;
    const operation = res.locals.operation;
    if (!credential || !operation) return next(new Error('partnerPermissions needs a credential and an operation'));
    if (credential.environment === 'live' && !credential.approved) {
      return next(
        new ApiError(
          'forbidden',
          'This live credential has not been approved yet; use your sandbox credential until it is',
        ),
      );
    }
    const missing = operation.scopes.filter((s) => !credential.scopes.includes(s));
    if (missing.length > 0) {
      return next(
        new ApiError(
          'forbidden',
          `This credential lacks the scope "${missing.join('", "')}" required by ${operation.method} ${operation.path}`,
        ),
      );
    }
    next();
  };
}
