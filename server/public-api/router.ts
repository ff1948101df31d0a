// The public surface (the public document's info.description: "Authentication", "Headers and rate limits"): one pipeline in front of every operation of the public
// document, then one handler per operationId from the modules that own them. The order matters:
// the token is resolved before the rate limit (it names the bucket) and enforced after it (a 401
// carries the rate-limit headers too); validation precedes idempotency, so only answers of an
// executing operation are stored.
import express, { type Request, type RequestHandler, type Router } from 'express';
import { rateLimitClasses } from '../domain/rate-limit.ts';
import { bodyLimitsOf, bodyStructure } from '../http/body-limits.ts';
import { deprecationHeaders } from '../http/deprecation.ts';
import { operationsWithIdempotencyKey } from '../http/idempotency-key.ts';
import { dispatchByOperationId, matchOperation } from '../http/operation-guard.ts';
import { OperationTable } from '../http/operations.ts';
import { bodyReadError, jsonBody } from '../http/raw-body.ts';
import { openApiValidator } from '../http/validator.ts';
import { enforceBearer, resolveBearer, tokenPolicy, type SecurityRequirement, type TokenPolicy } from './bearer.ts';
import type { AccessTokenVerifier, HandlerMap, PublicDeps } from './context.ts';
import { errorShapes, publicErrorHandler } from './error-format.ts';
import { formBody } from './form-body.ts';
import { publicIdempotency } from './idempotency.ts';
import { publicRateLimit } from './rate-limit.ts';

export interface PublicRouterOptions {
  document: Record<string, unknown>;
  validateResponses: boolean;
  /** Handlers by operationId (server/public-api/modules.ts composes them). */
  handlers: HandlerMap;
  accessTokens: AccessTokenVerifier;
  /**
   * Handlers that validate their own input and render their own pages (the hosted checkout,
   * referral and brokerage-progress pages, written before this pipeline); they get the request
   * id, the rate limit and the error shapes, not the OpenAPI validator.
   */
  selfValidating: HandlerMap;
}

export function publicRouter(deps: PublicDeps, options: PublicRouterOptions): Router {
  const table = new OperationTable(options.document);
  const handlers: HandlerMap = { ...options.handlers, ...options.selfValidating };
  const policies = tokenPolicies(options.document);
  const bearer = {
    accessTokens: options.accessTokens,
    baseUrl: (req: Request) => deps.baseUrl(req),
    policyOf: (operationId: string) => policies.get(operationId) ?? tokenPolicy(undefined),
  };
  const validator = openApiValidator(options.document, { validateResponses: options.validateResponses });
  const unlessSelfValidating =
    (...middleware: RequestHandler[]): RequestHandler =>
    (req, res, next) => {
      const op = res.locals.operation;
      if (op && options.selfValidating[op.operationId]) return next();
      let i = 0;
      const step = (err?: unknown): void => {
        if (err !== undefined && err !== null) return next(err);
        const m = middleware[i++];
        if (!m) return next();
        void Promise.resolve(m(req, res, step)).catch(next);
      };
      step();
    };

  const router = express.Router();
  router.use(
    // Mounted last: whatever reaches it and is not one of its operations is this surface's 404,
    // counted and answered with the rate-limit headers like every other public answer.
    matchOperation(table),
    deprecationHeaders(),
    resolveBearer(bearer),
    publicRateLimit({ classes: rateLimitClasses(options.document), replayGuard: deps.store.replayGuard, clock: deps.clock }),
    (_req, res, next) => next(res.locals.unmatched),
    bodyReadError(),
    enforceBearer(bearer),
    // Every operation's body, the self-validating pages' forms included, before anything parses it.
    bodyStructure(bodyLimitsOf(options.document)),
    unlessSelfValidating(jsonBody(), formBody(), ...validator),
    publicIdempotency({ idempotency: deps.store.idempotency, clock: deps.clock }, operationsWithIdempotencyKey(options.document, { required: false })),
    dispatchByOperationId(handlers),
  );
  router.use(publicErrorHandler(errorShapes(options.document), deps.log, deps.faults));
  return router;
}

function tokenPolicies(document: Record<string, unknown>): Map<string, TokenPolicy> {
  const out = new Map<string, TokenPolicy>();
  const global = document.security as SecurityRequirement | undefined;
  for (const item of Object.values((document.paths ?? {}) as Record<string, Record<string, { operationId?: string; security?: SecurityRequirement }>>)) {
    for (const op of Object.values(item)) {
      if (op && typeof op === 'object' && op.operationId) out.set(op.operationId, tokenPolicy(op.security ?? global));
    }
  }
  return out;
}
