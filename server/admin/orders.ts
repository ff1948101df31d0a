// Operator order moves: POST /orders/{public_id}/{action} (admin contract, the order state machine's
// operator actions).
import type { RequestHandler } from 'express';
import type { components } from '../../generated/admin.d.ts';
import { OPERATOR_ACTIONS, type OperatorAction } from '../domain/order-state.ts';
import { rfc3339 } from '../domain/rfc3339.ts';
import { ApiError } from '../http/errors.ts';
import type { PartnerDeps } from '../partner/context.ts';
import { applyMove } from '../partner/order-moves.ts';
import type { OrderRow } from '../store/orders.ts';

type Schemas = components['schemas'];

export function applyOrderAction(deps: PartnerDeps): RequestHandler {
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

  return async (req, res) => {
    const publicId = res.locals.pathParams?.public_id ?? '';
    const action = res.locals.pathParams?.action ?? '';
    if (!(OPERATOR_ACTIONS as readonly string[]).includes(action))
      throw new ApiError('validation_error', `Unknown action "${action}"`);
    const reason = (req.body as Schemas['OrderActionRequest'] | undefined)?.reason ?? null;
    const updated = await deps.store.transaction(async (tx) => {
      const order = await tx.orders.findOrder(publicId);
      if (!order) throw new ApiError('not_found', `Order "${publicId}" not found`);
      const partner = await tx.credentials.findPartner(order.partner_id);
      const now = deps.clock.now();
      // Test-only fault: the state machine is asked as if a delivered order were still in transfer.
      const asSeen =
        deps.faults?.has('cancel-after-delivery') && action === 'cancel' && order.status === 'TRANSFER_COMPLETED'
          ? { ...order, status: 'TRANSFER_IN_PROGRESS' }
          : order;
      return applyMove(tx, asSeen, action as OperatorAction, now + (partner?.clockOffsetMs ?? 0), now, reason);
    });
    deps.notifyOutbox();
    res.json(await orderResource(updated));
  };
}
