// The operator API (/api/admin/v1): bearer-authenticated with the configured ADMIN_TOKEN,
// validated against the admin document, dispatched by operationId to one handler module per
// resource (credentials, orders, clock, brokerage, settlements).
import express, { type RequestHandler, type Router } from 'express';
import { bodyLimitsOf, bodyStructure } from '../http/body-limits.ts';
import { dispatchByOperationId, matchOperation } from '../http/operation-guard.ts';
import { OperationTable } from '../http/operations.ts';
import { bodyReadError, jsonBody } from '../http/raw-body.ts';
import { openApiValidator } from '../http/validator.ts';
import type { PartnerDeps } from '../partner/context.ts';
import { bearerAuth } from './bearer-auth.ts';
import { applyBrokerageAction } from './brokerage.ts';
import { advancePartnerClock } from './clock.ts';
import { credentialHandlers } from './credentials.ts';
import { applyOrderAction } from './orders.ts';
import { settlementHandlers } from './settlements.ts';

export interface AdminRouterOptions {
  adminToken: string;
  document: Record<string, unknown>;
  /** The partner document, for the default quotas of its rate-limit classes. */
  partnerDocument: Record<string, unknown>;
  validateResponses: boolean;
}

export function adminRouter(deps: PartnerDeps, options: AdminRouterOptions): Router {
  const table = new OperationTable(options.document);
  const handlers: Record<string, RequestHandler> = {
    applyBrokerageAction: applyBrokerageAction(deps),
    ...settlementHandlers(deps),
    ...credentialHandlers(deps, options.partnerDocument),
    applyOrderAction: applyOrderAction(deps),
    advancePartnerClock: advancePartnerClock(deps),
  };

  const router = express.Router();
  router.use(bodyReadError(), bearerAuth(options.adminToken), matchOperation(table), (_req, res, next) => next(res.locals.unmatched), bodyStructure(bodyLimitsOf(options.document)), jsonBody(), ...openApiValidator(options.document, { validateResponses: options.validateResponses }), dispatchByOperationId(handlers));
  return router;
}
