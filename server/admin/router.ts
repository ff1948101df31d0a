// The operator API (/api/admin/v1): bearer-authenticated with the configured ADMIN_TOKEN,
// validated against the admin document, dispatched by operationId to one handler module per
// resource (credentials, orders, clock, brokerage, settlements).
import express, { type RequestHandler, type Router } from 'express';
import { bodyLimitsOf, bodyStructure } from '../http/body-limits.ts';
import type { ApiContract } from '../contract/index.ts';
import { dispatchByOperationId } from '../http/dispatch.ts';
import { cacheControl } from '../http/cache-control.ts';
import { inOrder } from '../http/in-order.ts';
import { matchOperation, unmatchedRoute } from '../http/match-operation.ts';
import { bodyReadError, jsonBody } from '../http/raw-body.ts';
import { openApiValidator, type ContractDefectLog } from '../http/validator.ts';
import type { PartnerDeps } from '../partner/context.ts';
import { bearerAuth } from './bearer-auth.ts';
import { tokenThrottle } from './token-throttle.ts';
import { applyBrokerageAction } from './brokerage.ts';
import { advancePartnerClock } from './clock.ts';
import { credentialHandlers } from './credentials.ts';
import { applyOrderAction } from './orders.ts';
import { settlementHandlers } from './settlements.ts';

export interface AdminRouterOptions {
  adminToken: string;
  /** The admin document's index. */
  contract: ApiContract;
  /** The partner document's index, for the default quotas of its rate-limit classes. */
  partnerContract: ApiContract;
  validateResponses: boolean;
  /** Response-validation failures of state-changing answers (server/http/validator.ts). */
  onContractDefect?: ContractDefectLog;
}

export function adminRouter(deps: PartnerDeps, options: AdminRouterOptions): Router {
  const handlers: Record<string, RequestHandler> = {
    applyBrokerageAction: applyBrokerageAction(deps),
    ...settlementHandlers(deps),
    ...credentialHandlers(deps, options.partnerContract.document),
    applyOrderAction: applyOrderAction(deps),
    advancePartnerClock: advancePartnerClock(deps),
  };

  const router = express.Router();
  router.use(
    inOrder(
      bodyReadError(),
      bearerAuth(options.adminToken, tokenThrottle({ store: deps.store, now: () => deps.clock.now() })),
      matchOperation(options.contract),
      cacheControl(options.contract),
      unmatchedRoute(),
      bodyStructure(bodyLimitsOf(options.contract.document)),
      jsonBody(),
      openApiValidator(options.contract, {
        validateResponses: options.validateResponses,
        ...(options.onContractDefect ? { onContractDefect: options.onContractDefect } : {}),
      }),
      dispatchByOperationId(handlers),
    ),
  );
  return router;
}
