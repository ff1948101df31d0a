// Applying a move of the order state machine: the new status, the timeline entry and the events
// it writes, all through one transaction's repositories so they land together.
import { randomBase62 } from '../ids.ts';
import { rfc3339 } from '../domain/rfc3339.ts';
import { transition, type OrderMove, type OrderStatus, type WrittenEvent } from '../domain/order-state.ts';
import { ApiError } from '../http/errors.ts';
import type { Repositories } from '../store/index.ts';
import type { OrderRow } from '../store/orders.ts';
import { reverseCommission } from './referral-ledger.ts';
import { eventOrder } from './resources.ts';

/** Event ids sort by creation time first, so they read naturally in logs; order comes from the store's sequence. */
export const newEventId = (at: number) => `evt_${at.toString(36).padStart(9, '0')}${randomBase62(16)}`;

/** The stored events of a move, each with its id and envelope; `order` is the order as it is after the move. */
export function orderEvents(
  order: OrderRow,
  events: readonly WrittenEvent[],
  at: number,
): Array<{ id: string; type: string; body: string; deliver: boolean }> {
  return events.map((event) => {
    const id = newEventId(at);
    const body = JSON.stringify({
      id,
      type: event.type,
      created_at: rfc3339(at),
      partner_id: order.partner_id,
      data: { order: eventOrder(order) },
    });
    return { id, type: event.type, body, deliver: event.delivered };
  });
}

/**
 * Writes the events of a move and returns the first (the one the timeline entry names).
 * `order` is the order as it is after the move.
 */
export async function writeOrderEvents(
  tx: Repositories,
  order: OrderRow,
  events: readonly WrittenEvent[],
  at: number,
  now: number,
) {
  const rows = orderEvents(order, events, at);
  for (const { id, type, body, deliver } of rows)
    await tx.events.append({ id, partnerId: order.partner_id, type, createdAt: at, body }, deliver, now);
  return rows[0];
}

/** Applies `move` to a stored order, or throws 409 invalid_state naming its current status. */
export async function applyMove(
  tx: Repositories,
  order: OrderRow,
  move: OrderMove,
  at: number,
  now: number,
  note: string | null,
): Promise<OrderRow> {
  const result = transition(
    {
      public_id: order.public_id,
      status: order.status as OrderStatus,
      payment_model: order.payment_model,
      held_from: order.held_from as OrderStatus | null,
    },
    move,
  );
  if (!result.ok) throw new ApiError('invalid_state', result.message);
  const updated: OrderRow = {
    ...order,
    status: result.status,
    held_from: result.held_from,
    updated_at: at,
    transfer_completed_at: result.status === 'TRANSFER_COMPLETED' ? at : order.transfer_completed_at,
  };
  await tx.orders.updateOrder(order.public_id, {
    status: updated.status,
    held_from: updated.held_from,
    updated_at: updated.updated_at,
    transfer_completed_at: updated.transfer_completed_at,
  });
  const first = await writeOrderEvents(tx, updated, result.events, at, now);
  await tx.orders.appendTimeline({
    public_id: order.public_id,
    status: updated.status,
    event_type: first?.type ?? null,
    event_id: first?.id ?? null,
    at,
    note,
  });
  // A refunded or cancelled order frees its domain for sale again.
  if (updated.status === 'REFUNDED' || updated.status === 'CANCELLED') {
    await tx.inventory.markListed(order.environment, order.domain);
    await reverseCommission(tx, updated, at);
  }
  return updated;
}
