// The referral commission ledger's writers. Every function takes the repositories of the
// caller's transaction, so a ledger row lands together with the change that causes it.
//
// For the settlement and payout code:
//   - markPending(tx, partnerId, orderIds, at): call when a settlement run settles orders; each
//     of those orders with an `accrued` referral commission gets a `pending` row.
//   - recordPaidOut(tx, partnerId, amountCents, { payoutId, at }): call when a payout of kind
//     `referral_commission` is recorded; `pending` commissions are paid out oldest first while
//     the amount covers them whole, one `paid_out` row each (naming the payout).
// Orders without a referral commission are skipped, so both may be called for any orders.
import { COMMISSION_DEFAULTS_BPS, commissionCents } from '../domain/money.ts';
import { canMoveCommission, type CommissionStatus } from '../domain/referral.ts';
import { newId } from '../ids.ts';
import type { Repositories } from '../store/index.ts';
import type { OrderRow } from '../store/orders.ts';

const entryId = () => newId('cle', 16);

/**
 * Attributes a paid hosted-checkout order to a click and accrues its commission (at the
 * partner's referral rate, x-commission-defaults `referral-bps` unless the operator set one).
 */
export async function accrueCommission(
  tx: Repositories,
  order: OrderRow,
  click: { click_id: string; link_id: string },
  at: number,
): Promise<number> {
  const bps = await tx.referral.referralBps(order.partner_id, COMMISSION_DEFAULTS_BPS.referral);
  const commission = commissionCents(order.sale_price_cents, bps);
  await tx.referral.insertSale({
    public_id: order.public_id,
    partner_id: order.partner_id,
    link_id: click.link_id,
    click_id: click.click_id,
    domain: order.domain,
    buyer_email: order.buyer_email,
    buyer_country: order.buyer_country,
    amount_cents: order.sale_price_cents,
    commission_cents: commission,
    currency: order.currency,
    sold_at: at,
  });
  await tx.referral.appendLedger({
    entry_id: entryId(),
    partner_id: order.partner_id,
    public_id: order.public_id,
    status: 'accrued',
    amount_cents: commission,
    currency: order.currency,
    payout_id: null,
    created_at: at,
  });
  return commission;
}

async function move(
  tx: Repositories,
  partnerId: string,
  publicId: string,
  next: CommissionStatus,
  at: number,
  payoutId: string | null = null,
): Promise<boolean> {
  const sale = await tx.referral.findSale(publicId);
  if (!sale || sale.partner_id !== partnerId) return false;
  const latest = (await tx.referral.latestStatuses([publicId])).get(publicId);
  if (!latest || !canMoveCommission(latest, next)) return false;
  await tx.referral.appendLedger({
    entry_id: entryId(),
    partner_id: partnerId,
    public_id: publicId,
    status: next,
    amount_cents: Number(sale.commission_cents),
    currency: sale.currency,
    payout_id: payoutId,
    created_at: at,
  });
  return true;
}

/** A refunded or cancelled order takes its commission back (`reversed`); no-op without one. */
export async function reverseCommission(
  tx: Repositories,
  order: Pick<OrderRow, 'partner_id' | 'public_id'>,
  at: number,
): Promise<boolean> {
  return move(tx, order.partner_id, order.public_id, 'reversed', at);
}

/** Settlement: accrued commissions of these orders become `pending`. Returns the orders moved. */
export async function markPending(
  tx: Repositories,
  partnerId: string,
  orderIds: readonly string[],
  at: number,
): Promise<string[]> {
  const moved: string[] = [];
  for (const id of orderIds) if (await move(tx, partnerId, id, 'pending', at)) moved.push(id);
  return moved;
}

/**
 * A referral payout: pays out `pending` commissions oldest first while `amountCents` covers each
 * whole. Returns the cents booked; any remainder is not booked against a commission.
 */
export async function recordPaidOut(
  tx: Repositories,
  partnerId: string,
  amountCents: number,
  options: { payoutId: string; at: number },
): Promise<{ paidCents: number; orderIds: string[] }> {
  let left = amountCents;
  const orderIds: string[] = [];
  for (const c of await tx.referral.commissionsAt(partnerId, 'pending')) {
    if (c.amount_cents > left) break;
    if (await move(tx, partnerId, c.public_id, 'paid_out', options.at, options.payoutId)) {
      left -= c.amount_cents;
      orderIds.push(c.public_id);
    }
  }
  return { paidCents: amountCents - left, orderIds };
}
