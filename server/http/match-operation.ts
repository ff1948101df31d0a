// Routing, once per request: the operation of the contract index a request's method and raw path
// name (`res.locals.operation`, with its path parameters), or the surface's unmatched-route
// answer kept for the step that gives it (`unmatchedRoute`), so that the steps before it (the
// partner signature, the rate limit) still run for unknown paths.
import type { RequestHandler } from 'express';
import type { ApiContract, ContractOperation } from '../contract/index.ts';
import { ApiError } from './errors.ts';

declare module 'express-serve-static-core' {
  interface Locals {
    operation?: ContractOperation;
    pathParams?: Record<string, string>;
    /** The unmatched-route answer of this request, when no operation matched. */
    unmatched?: ApiError;
  }
}

/** The one answer to a request no operation of any surface takes: 404 `not_found`. */
export function noOperation(method: string, path: string): ApiError {
  return new ApiError('not_found', `No operation at ${method} ${path}`);
}

export function matchOperation(contract: ApiContract): RequestHandler {
  return (req, res, next) => {
    const path = req.originalUrl.split('?')[0] ?? '/';
    const match = contract.match(req.method, path);
    if (match.kind === 'found') {
      res.locals.operation = match.operation;
      res.locals.pathParams = match.params;
    } else if (match.kind === 'method-not-allowed') {
      res.setHeader('Allow', match.allowed.join(', '));
      res.locals.unmatched = new ApiError(
        'method_not_allowed',
        `${req.method} is not allowed on ${path}; allowed: ${match.allowed.join(', ')}`,
      );
    } else {
      res.locals.unmatched = noOperation(req.method, path);
    }
    next();
  };
}

/** Gives the unmatched-route answer `matchOperation` kept (404, or 405 with `Allow`); matched requests go on. */
export function unmatchedRoute(): RequestHandler {
  return (_req, res, next) => next(res.locals.unmatched);
}
