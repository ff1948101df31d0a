// The last step of a surface's pipeline: the handler of the operation matched in the contract.
import type { RequestHandler } from 'express';
import { ApiError } from './errors.ts';

/**
 * A documented operation without a handler is the server's shortcoming: the documented 500 (a
 * 404 is not among the operation's answers, and the response validator would turn it into
 * Express's HTML error page).
 */
export function dispatchByOperationId(handlers: Readonly<Record<string, RequestHandler>>): RequestHandler {
  return (req, res, next) => {
    const operation = res.locals.operation;
    const handler = operation ? handlers[operation.operationId] : undefined;
    if (!handler) {
      return next(
        new ApiError(
          'internal_error',
          `${operation?.method ?? req.method} ${operation?.path ?? req.path} is not available on this server yet`,
        ),
      );
    }
    return handler(req, res, next);
  };
}
