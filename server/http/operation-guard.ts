// Around authentication: find the operation in the spec (before it, for the rate-limit class
// whose count authentication takes with the nonce), decide the rate limit, then check the scopes
// it declares (x-scopes) and the credential's standing. Rate-limit headers are set from there on,
// so every answer to an identified caller has them.
import type { RequestHandler } from 'express';
import type { Clock } from '../clock.ts';
import { decideRateLimit, rateLimitHeaders, type RateLimitClass } from '../domain/rate-limit.ts';
import type { ReplayGuardRepository } from '../store/replay-guard.ts';
import { ApiError } from './errors.ts';
import type { OperationFacts, OperationTable } from './operations.ts';

declare module 'express-serve-static-core' {
  interface Locals {
    operation?: OperationFacts;
    pathParams?: Record<string, string>;
  }
}

/** Unknown paths count against the class of "all other reads". */
const FALLBACK_CLASS = 'reporting';

export function matchOperation(table: OperationTable): RequestHandler {
  return (req, res, next) => {
    const path = req.originalUrl.split('?')[0] ?? '/';
    const match = table.match(req.method, path);
    if (match.kind === 'found') {
      res.locals.operation = match.operation;
      res.locals.pathParams = match.params;
    } else if (match.kind === 'method-not-allowed') {
      res.setHeader('Allow', match.allowed.join(', '));
      res.locals.unmatched = new ApiError('method_not_allowed', `${req.method} is not allowed on ${path}; allowed: ${match.allowed.join(', ')}`);
    } else {
      res.locals.unmatched = new ApiError('not_found', `No operation at ${req.method} ${path}`);
    }
    next();
  };
}

declare module 'express-serve-static-core' {
  interface Locals {
    unmatched?: ApiError;
  }
}

export type RateLimitClasses = Readonly<Record<string, RateLimitClass>>;

/** The rate-limit class of an operation (x-rate-limit); unknown paths count as other reads. */
export function rateLimitClassOf(classes: RateLimitClasses, operation: OperationFacts | undefined): RateLimitClass & { name: string } {
  const name = operation?.rateLimit ?? FALLBACK_CLASS;
  const cls = classes[name];
  if (!cls) throw new Error(`Unknown rate-limit class "${name}"`);
  return { ...cls, name };
}

export interface RateLimitDeps {
  classes: RateLimitClasses;
  /** Counts a request that authentication did not count (a replay let through by a test fault). */
  replayGuard: Pick<ReplayGuardRepository, 'hit'>;
  clock: Clock;
}

export function partnerRateLimit(deps: RateLimitDeps): RequestHandler {
  return async (_req, res, next) => {
    try {
      const credential = res.locals.credential;
      if (!credential) throw new Error('partnerRateLimit needs an authenticated credential');
      const cls = rateLimitClassOf(deps.classes, res.locals.operation);
      const className = cls.name;
      const limit = credential.rateLimits[className as keyof typeof credential.rateLimits] ?? cls.quota;
      const now = deps.clock.now();
      const { count, windowStart } = res.locals.counted ?? (await deps.replayGuard.hit(`${credential.keyId}:${className}`, now, cls.windowSeconds * 1000));
      const decision = decideRateLimit({ limit, windowSeconds: cls.windowSeconds, now, count: count - 1, windowStart: count === 1 ? undefined : windowStart });
      const headers = rateLimitHeaders(className, { limit, windowSeconds: cls.windowSeconds }, decision);
      for (const [name, value] of Object.entries(headers)) if (name !== 'Retry-After') res.setHeader(name, value);
      if (!decision.allowed) {
        throw new ApiError('rate_limited', `Rate limit "${className}" of ${limit} requests per ${cls.windowSeconds} s exceeded; retry in ${headers['Retry-After']} s`, undefined, {
          'Retry-After': headers['Retry-After'] ?? '1',
        });
      }
      next();
    } catch (err) {
      next(err);
    }
  };
}

/** 404/405 for unknown operations, then scopes, then the credential's standing (live approval). */
export function partnerPermissions(): RequestHandler {
  return (_req, res, next) => {
    if (res.locals.unmatched) return next(res.locals.unmatched);
    const credential = res.locals.credential;
    const operation = res.locals.operation;
    if (!credential || !operation) return next(new Error('partnerPermissions needs a credential and an operation'));
    if (credential.environment === 'live' && !credential.approved) {
      return next(new ApiError('forbidden', 'This live credential has not been approved yet; use your sandbox credential until it is'));
    }
    const missing = operation.scopes.filter((s) => !credential.scopes.includes(s));
    if (missing.length > 0) {
      return next(new ApiError('forbidden', `This credential lacks the scope "${missing.join('", "')}" required by ${operation.method} ${operation.path}`));
    }
    next();
  };
}

/**
 * The last step of a surface's pipeline: the handler of the operation matched in the spec. A
 * documented operation without a handler is the server's shortcoming: the documented 500 (a 404
 * is not among the operation's answers, and the response validator would turn it into Express's
 * HTML error page).
 */
export function dispatchByOperationId(handlers: Readonly<Record<string, RequestHandler>>): RequestHandler {
  return (req, res, next) => {
    const operation = res.locals.operation;
    const handler = operation ? handlers[operation.operationId] : undefined;
    if (!handler) {
      return next(new ApiError('internal_error', `${operation?.method ?? req.method} ${operation?.path ?? req.path} is not available on this server yet`));
    }
    return handler(req, res, next);
  };
}
