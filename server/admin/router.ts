// The operator API (/api/admin/v1): bearer-authenticated with the configured ADMIN_TOKEN,
// validated against the admin document, dispatched by operationId.
import { timingSafeEqual } from 'node:crypto';
import express, { type RequestHandler, type Router } from 'express';
import type { components } from '../../generated/admin.d.ts';
import type { ApiContract } from '../contract/index.ts';
import { rateLimitClasses } from '../domain/rate-limit.ts';
import { rfc3339 } from '../domain/rfc3339.ts';
import { OPERATOR_ACTIONS, type OperatorAction } from '../domain/order-state.ts';
import { applyBrokerageAction } from './brokerage.ts';
import { ApiError } from '../http/errors.ts';
import { dispatchByOperationId } from '../http/dispatch.ts';
import { inOrder } from '../http/in-order.ts';
import { matchOperation, unmatchedRoute } from '../http/match-operation.ts';
import { bodyLimitsOf, bodyStructure } from '../http/body-limits.ts';
import { bodyReadError, jsonBody } from '../http/raw-body.ts';
import { openApiValidator } from '../http/validator.ts';
import { newId, randomBase62 } from '../ids.ts';
import { applyMove } from '../partner/order-moves.ts';
import type { PartnerDeps } from '../partner/context.ts';
import type { Credential } from '../store/credentials.ts';
import type { OrderRow } from '../store/orders.ts';
import { settlementHandlers } from './settlements.ts';

type Schemas = components['schemas'];

export interface AdminRouterOptions {
  adminToken: string;
  /** The admin document's index. */
  contract: ApiContract;
  /** The partner document's index, for the default quotas of its rate-limit classes. */
  partnerContract: ApiContract;
  validateResponses: boolean;
}

function bearerAuth(token: string): RequestHandler {
  const expected = Buffer.from(token, 'utf8');
  return (req, res, next) => {
    const header = req.get('authorization') ?? '';
    const match = /^Bearer (.+)$/.exec(header);
    if (!match?.[1]) {
      res.setHeader('WWW-Authenticate', 'Bearer');
      return next(new ApiError('missing_credentials', 'The operator API needs Authorization: Bearer <ADMIN_TOKEN>'));
    }
    const given = Buffer.from(match[1], 'utf8');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      res.setHeader('WWW-Authenticate', 'Bearer error="invalid_token"');
      return next(new ApiError('invalid_token', 'The bearer token is not the operator token'));
    }
    next();
  };
}

export function adminRouter(deps: PartnerDeps, options: AdminRouterOptions): Router {
  const defaults = Object.fromEntries(Object.entries(rateLimitClasses(options.partnerContract.document)).map(([name, c]) => [name, c.quota])) as Record<
    'search' | 'write' | 'reporting',
    number
  >;

  const credentialResource = (c: Credential): Schemas['Credential'] => ({
    key_id: c.keyId,
    environment: c.environment,
    scopes: c.scopes as Schemas['Scopes'],
    partner_id: c.partnerId,
    affiliate: c.affiliate,
    approved: c.approved,
    rate_limits: { ...defaults, ...c.rateLimits },
    created_at: rfc3339(c.createdAt),
  });

  const orderResource = async (order: OrderRow): Promise<Schemas['AdminOrder']> => ({
    public_id: order.public_id,
    partner_id: order.partner_id,
    domain: order.domain,
    status: order.status as Schemas['OrderStatus'],
    sale_price_cents: order.sale_price_cents,
    currency: order.currency,
    payment_model: order.payment_model,
    created_at: rfc3339(order.created_at),
    updated_at: rfc3339(order.updated_at),
    timeline: (await deps.store.orders.timeline(order.public_id)).map((t) => ({
      status: t.status as Schemas['OrderStatus'],
      event_type: t.event_type,
      event_id: t.event_id,
      at: rfc3339(t.at),
      note: t.note,
    })),
  });

  const findCredential = async (keyId: string) => {
    const credential = await deps.store.credentials.findCredential(keyId);
    if (!credential) throw new ApiError('not_found', `Credential "${keyId}" not found`);
    return credential;
  };

  const handlers: Record<string, RequestHandler> = {
    applyBrokerageAction: applyBrokerageAction(deps),
    ...settlementHandlers(deps),
    async createCredential(req, res) {
      const body = req.body as Schemas['CredentialCreateRequest'];
      const now = deps.clock.now();
      let partnerId = body.partner_id;
      if (partnerId) {
        const partner = await deps.store.credentials.findPartner(partnerId);
        if (!partner) throw new ApiError('not_found', `Partner "${partnerId}" not found`);
        if (partner.environment !== body.environment) {
          throw new ApiError('invalid_state', `Partner "${partnerId}" is a ${partner.environment} partner; it cannot hold a ${body.environment} credential`);
        }
      }
      const live = body.environment === 'live';
      const credential: Credential = {
        keyId: `pk_${live ? 'live' : 'test'}_${randomBase62(24)}`,
        partnerId: partnerId ?? newId('ptn', 16),
        environment: body.environment,
        secret: `sk_${live ? 'live' : 'test'}_${randomBase62(40)}`,
        scopes: [...new Set(body.scopes)],
        affiliate: body.affiliate ?? false,
        approved: live ? (body.approved ?? false) : true,
        rateLimits: body.rate_limits ?? {},
        createdAt: now,
      };
      await deps.store.transaction(async (tx) => {
        if (!partnerId) await tx.credentials.createPartner({ id: credential.partnerId, environment: credential.environment, clockOffsetMs: 0, createdAt: now });
        await tx.credentials.createCredential(credential);
      });
      const created: Schemas['NewCredential'] = { ...credentialResource(credential), secret: credential.secret };
      res.status(201).json(created);
    },

    async approveCredential(_req, res) {
      const credential = await findCredential(res.locals.pathParams?.key_id ?? '');
      await deps.store.credentials.updateCredential(credential.keyId, { approved: true });
      res.json(credentialResource({ ...credential, approved: true }));
    },

    async updateCredential(req, res) {
      const credential = await findCredential(res.locals.pathParams?.key_id ?? '');
      const body = req.body as Schemas['CredentialUpdateRequest'];
      const rateLimits = { ...credential.rateLimits };
      for (const [cls, quota] of Object.entries(body.rate_limits ?? {}) as Array<[keyof typeof rateLimits, number | null]>) {
        if (quota === null) delete rateLimits[cls];
        else rateLimits[cls] = quota;
      }
      const patch = {
        rateLimits,
        ...(body.scopes ? { scopes: [...new Set(body.scopes)] } : {}),
        ...(body.affiliate !== undefined ? { affiliate: body.affiliate } : {}),
      };
      await deps.store.credentials.updateCredential(credential.keyId, patch);
      res.json(credentialResource({ ...credential, ...patch }));
    },

    async applyOrderAction(req, res) {
      const publicId = res.locals.pathParams?.public_id ?? '';
      const action = res.locals.pathParams?.action ?? '';
      if (!(OPERATOR_ACTIONS as readonly string[]).includes(action)) throw new ApiError('validation_error', `Unknown action "${action}"`);
      const reason = (req.body as Schemas['OrderActionRequest'] | undefined)?.reason ?? null;
      const updated = await deps.store.transaction(async (tx) => {
        const order = await tx.orders.findOrder(publicId);
        if (!order) throw new ApiError('not_found', `Order "${publicId}" not found`);
        const partner = await tx.credentials.findPartner(order.partner_id);
        const now = deps.clock.now();
        // Test-only fault: the state machine is asked as if a delivered order were still in transfer.
        const asSeen = deps.faults?.has('cancel-after-delivery') && action === 'cancel' && order.status === 'TRANSFER_COMPLETED' ? { ...order, status: 'TRANSFER_IN_PROGRESS' } : order;
        return applyMove(tx, asSeen, action as OperatorAction, now + (partner?.clockOffsetMs ?? 0), now, reason);
      });
      deps.notifyOutbox();
      res.json(await orderResource(updated));
    },

    async advancePartnerClock(req, res) {
      const partnerId = res.locals.pathParams?.partner_id ?? '';
      const { seconds } = req.body as Schemas['ClockAdvanceRequest'];
      const partner = await deps.store.credentials.findPartner(partnerId);
      if (!partner) throw new ApiError('not_found', `Partner "${partnerId}" not found`);
      if (partner.environment !== 'sandbox') throw new ApiError('invalid_state', `Partner "${partnerId}" is a live partner; only sandbox partners have a test clock`);
      const moved = await deps.store.credentials.advanceClock(partnerId, seconds * 1000);
      const body: Schemas['ClockState'] = { partner_id: partnerId, business_time: rfc3339(deps.clock.now() + (moved?.clockOffsetMs ?? 0)) };
      res.json(body);
    },
  };

  const router = express.Router();
  router.use(
    inOrder(
      bodyReadError(),
      bearerAuth(options.adminToken),
      matchOperation(options.contract),
      unmatchedRoute(),
      bodyStructure(bodyLimitsOf(options.contract.document)),
      jsonBody(),
      openApiValidator(options.contract, { validateResponses: options.validateResponses }),
      dispatchByOperationId(handlers),
    ),
  );
  return router;
}
