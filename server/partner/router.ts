// The partner surface: the pipeline of x-signing `check-order`, then one handler per operationId.
// Paths live only in the spec; the router dispatches on the operation it matched there.
import express, { type RequestHandler, type Router } from 'express';
import type { ApiContract } from '../contract/index.ts';
import { rateLimitClasses } from '../domain/rate-limit.ts';
import { bodyLimitsOf, bodyStructure } from '../http/body-limits.ts';
import { deprecationHeaders } from '../http/deprecation.ts';
import { dispatchByOperationId } from '../http/dispatch.ts';
import { requireIdempotencyKey } from '../http/idempotency-key.ts';
import { cacheControl } from '../http/cache-control.ts';
import { inOrder } from '../http/in-order.ts';
import { matchOperation, unmatchedRoute } from '../http/match-operation.ts';
import { partnerAuth } from '../http/partner-auth.ts';
import { partnerPermissions } from '../http/permissions.ts';
import { rateLimit } from '../http/rate-limit.ts';
import { bodyReadError, jsonBody } from '../http/raw-body.ts';
import { challengeOnUnauthorized, signingChallengeOf } from '../http/signing-challenge.ts';
import { openApiValidator, type ContractDefectLog } from '../http/validator.ts';
import { createBrokerageCase, getBrokerageCase, getBrokerageEligibility, listBrokerageCases } from './brokerage.ts';
import { createCheckoutSession } from './checkout.ts';
import { credentialOf, type PartnerDeps } from './context.ts';
import { getAvailability, getDomain, getPricing, searchDomains } from './discovery.ts';
import { createOrder, createQuote, createRefund, getOrder, listOrders } from './orders.ts';
import {
  createLink,
  getReferralAnalytics,
  getReferralClicks,
  listCommissions,
  listLinks,
  listReferralPayouts,
  listReferralSales,
} from './referral.ts';
import { listPayouts, listSettlements, listTransactions } from './settlements.ts';
import { deactivateWebhook, getWebhook, listEvents, registerWebhook, type WebhookDeps } from './webhooks.ts';
import type { Credential } from '../store/credentials.ts';

export interface PartnerRouterOptions {
  /** The partner document's index. */
  contract: ApiContract;
  validateResponses: boolean;
  /** Response-validation failures of state-changing answers (server/http/validator.ts). */
  onContractDefect?: ContractDefectLog;
}

export function partnerRouter(deps: WebhookDeps, options: PartnerRouterOptions): Router {
  const { contract } = options;
  const handlers: Record<string, RequestHandler> = handlersByOperationId(deps);
  const classes = rateLimitClasses(contract.document);
  const router = express.Router();
  router.use(
    inOrder(
      // Test-only fault (server/faults.ts): the read failure is dropped, the empty body goes on.
      deps.faults?.has('partner-body-limit-ignored') ? (_req, _res, next) => next() : bodyReadError(),
      matchOperation(contract),
      cacheControl(contract),
      partnerAuth({
        credentials: deps.store.credentials,
        replayGuard: deps.store.replayGuard,
        // No unmatched class: a path or method the document does not define is not counted.
        classes,
        clock: deps.clock,
        readMark: deps.store.readMark,
        ...(deps.faults ? { faults: deps.faults } : {}),
      }),
      deprecationHeaders(),
      rateLimit({
        classes,
        counter: deps.store.replayGuard,
        clock: deps.clock,
        bucketOf: (_req, res, className) => `${credentialOf(res).keyId}:${className}`,
        limitOf: (res, className, cls) =>
          credentialOf(res).rateLimits[className as keyof Credential['rateLimits']] ?? cls.quota,
      }),
      unmatchedRoute(),
      partnerPermissions(),
      requireIdempotencyKey(),
      bodyStructure(bodyLimitsOf(contract.document)),
      jsonBody(),
      openApiValidator(contract, {
        validateResponses: options.validateResponses,
        ...(options.onContractDefect ? { onContractDefect: options.onContractDefect } : {}),
        ...(deps.faults?.has('unknown-query-ignored') ? { ignoreUnknownQuery: true } : {}),
      }),
      dispatchByOperationId(handlers),
    ),
  );
  // Every 401 above names the signing scheme (RFC 9110 §11.6.1).
  router.use(challengeOnUnauthorized(signingChallengeOf(contract)));
  return router;
}

function handlersByOperationId(deps: WebhookDeps): Record<string, RequestHandler> {
  return {
    searchDomains: searchDomains(deps),
    getDomain: getDomain(deps),
    getAvailability: getAvailability(deps),
    getPricing: getPricing(deps),
    createQuote: createQuote(deps),
    createOrder: createOrder(deps),
    listOrders: listOrders(deps),
    getOrder: getOrder(deps),
    refundOrder: createRefund(deps),
    registerWebhook: registerWebhook(deps),
    getWebhook: getWebhook(deps),
    deactivateWebhook: deactivateWebhook(deps),
    listEvents: listEvents(deps),
    createCheckoutSession: createCheckoutSession(deps),
    createLink: createLink(deps),
    listLinks: listLinks(deps),
    getReferralClicks: getReferralClicks(deps),
    listReferralSales: listReferralSales(deps),
    listCommissions: listCommissions(deps),
    listReferralPayouts: listReferralPayouts(deps),
    getReferralAnalytics: getReferralAnalytics(deps),
    getBrokerageEligibility: getBrokerageEligibility(deps),
    createBrokerageCase: createBrokerageCase(deps),
    getBrokerageCase: getBrokerageCase(deps),
    listBrokerageCases: listBrokerageCases(deps),
    listSettlements: listSettlements(deps),
    listTransactions: listTransactions(deps),
    listPayouts: listPayouts(deps),
  } satisfies Record<string, RequestHandler>;
}

export type { PartnerDeps };
