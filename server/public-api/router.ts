// The public surface (the public document's info.description: "Authentication", "Headers and rate limits"): one pipeline in front of every operation of the public
// document, then one handler per operationId from the modules that own them. The order matters:
// the token is resolved before the rate limit (it names the bucket) and enforced after it (a 401
// carries the rate-limit headers too); validation precedes idempotency, so only answers of an
// executing operation are stored.
import express, { type Request, type Router } from 'express';
import type { ApiContract } from '../contract/index.ts';
import { rateLimitClasses } from '../domain/rate-limit.ts';
import { bodyLimitsOf, bodyStructure } from '../http/body-limits.ts';
import { deprecationHeaders } from '../http/deprecation.ts';
import { dispatchByOperationId } from '../http/dispatch.ts';
import { cacheControl } from '../http/cache-control.ts';
import { inOrder } from '../http/in-order.ts';
import { matchOperation, unmatchedRoute } from '../http/match-operation.ts';
import { rateLimit } from '../http/rate-limit.ts';
import { bodyReadError, jsonBody } from '../http/raw-body.ts';
import { openApiValidator, type ContractDefectLog } from '../http/validator.ts';
import { enforceBearer, resolveBearer, tokenPolicy, type TokenPolicy } from './bearer.ts';
import type { AccessTokenVerifier, HandlerMap, PublicDeps } from './context.ts';
import { errorShapes, publicErrorHandler } from './error-format.ts';
import { formBody } from './form-body.ts';
import { publicIdempotency } from './idempotency.ts';
import { publicBuckets } from './rate-limit.ts';

/** Every public operation counts against the one class of the public document; unknown paths too. */
const UNMATCHED_CLASS = 'public';

export interface PublicRouterOptions {
  /** The public document's index. */
  contract: ApiContract;
  validateResponses: boolean;
  /** Response-validation failures of state-changing answers (server/http/validator.ts). */
  onContractDefect?: ContractDefectLog;
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
  const { contract } = options;
  const handlers: HandlerMap = { ...options.handlers, ...options.selfValidating };
  const policies = new Map<string, TokenPolicy>(
    contract.operations.map((op) => [op.operationId, tokenPolicy(op.security)]),
  );
  const bearer = {
    accessTokens: options.accessTokens,
    baseUrl: (req: Request) => deps.baseUrl(req),
    policyOf: (operationId: string) => policies.get(operationId) ?? tokenPolicy(undefined),
  };
  const validation = inOrder(
    jsonBody(),
    formBody(),
    openApiValidator(contract, {
      validateResponses: options.validateResponses,
      ...(options.onContractDefect ? { onContractDefect: options.onContractDefect } : {}),
      ...(deps.faults.has('unknown-query-ignored') ? { ignoreUnknownQuery: true } : {}),
    }),
  );
  const idempotent = new Set(
    contract.operations.filter((op) => op.idempotencyKey !== undefined).map((op) => op.operationId),
  );

  const classes = rateLimitClasses(contract.document);
  const buckets = publicBuckets(classes);
  const router = express.Router();
  router.use(
    inOrder(
      // Mounted last: whatever reaches it and is not one of its operations is this surface's 404,
      // counted and answered with the rate-limit headers like every other public answer.
      matchOperation(contract),
      cacheControl(contract),
      deprecationHeaders(),
      resolveBearer(bearer),
      rateLimit({
        classes,
        unmatchedClass: UNMATCHED_CLASS,
        counter: deps.store.replayGuard,
        clock: deps.clock,
        bucketOf: buckets.bucketOf,
        ceilingBucketOf: buckets.ceilingBucketOf,
        furtherCalls: true,
      }),
      unmatchedRoute(),
      bodyReadError(),
      enforceBearer(bearer),
      // Every operation's body, the self-validating pages' forms included, before anything parses it.
      bodyStructure(bodyLimitsOf(contract.document)),
      (req, res, next) =>
        options.selfValidating[res.locals.operation?.operationId ?? ''] ? next() : validation(req, res, next),
      publicIdempotency({ idempotency: deps.store.idempotency, clock: deps.clock }, idempotent),
      dispatchByOperationId(handlers),
    ),
  );
  router.use(publicErrorHandler(errorShapes(contract), deps.log, deps.faults));
  return router;
}
