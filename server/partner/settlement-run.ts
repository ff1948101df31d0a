// The settlement run (admin runSettlement's description): for each partner, in a transaction
// of its own, the delivered orders of the period become SETTLED through the state machine (so
// their timeline entries and `order.settled` events are written with them) and one statement
// lists them. The operator's run and the scheduled month-end run share it.
import type { Clock } from '../clock.ts';
import { monthEndsBetween, orderCommissionCents, statementTotals } from '../domain/settlement.ts';
import { newId } from '../ids.ts';
import type { Store } from '../store/index.ts';
import { isUniqueViolation, type SettlementPartner, type StatementWithOrders } from '../store/settlements.ts';
import { applyMove } from './order-moves.ts';
import { markPending } from './referral-ledger.ts';

export interface SettlementRunDeps {
  store: Store;
  clock: Clock;
  /** Tells the webhook dispatcher that `order.settled` deliveries are waiting. */
  notifyOutbox?: () => void;
}

/**
 * Closes the partner's period ending at `periodEnd` (exclusive, business time), or returns
 * undefined when its previous statement already reaches that far (or another run just wrote it).
 */
export async function settlePartner(
  store: Store,
  partner: SettlementPartner,
  periodEnd: number,
  now: number,
): Promise<StatementWithOrders | undefined> {
  try {
    return await store.transaction(async (tx) => {
      const periodStart = (await tx.settlements.lastStatementEnd(partner.id)) ?? partner.createdAt;
      if (periodEnd <= periodStart) return undefined;
      const businessNow = now + partner.clockOffsetMs;
      const rates = await tx.settlements.commissionRates(partner.id);
      const orders = (await tx.settlements.ordersToSettle(partner.id, periodEnd)).map((o) => ({
        order: o,
        commission_cents: orderCommissionCents(o, rates),
      }));
      const totals = statementTotals(
        orders.map(({ order, commission_cents }) => ({
          payment_model: order.payment_model,
          sale_price_cents: order.sale_price_cents,
          commission_cents,
        })),
      );
      const statement = {
        statement_id: newId('stm', 16),
        partner_id: partner.id,
        period_start: periodStart,
        period_end: periodEnd,
        ...totals,
        currency: orders[0]?.order.currency ?? 'USD',
        created_at: businessNow,
      };
      // The statement goes in first: a concurrent run for the same period fails here, on the
      // unique (partner_id, period_start), before it has moved any order.
      await tx.settlements.insertStatement(statement);
      for (const { order } of orders) await applyMove(tx, order, 'settle', businessNow, now, null);
      // Referral commission on these sales is now owed: accrued → pending (the CommissionStatus schema).
      await markPending(
        tx,
        partner.id,
        orders.map(({ order }) => order.public_id),
        businessNow,
      );
      await tx.settlements.insertStatementOrders(
        orders.map(({ order, commission_cents }) => ({
          public_id: order.public_id,
          statement_id: statement.statement_id,
          partner_id: partner.id,
          payment_model: order.payment_model,
          sale_price_cents: order.sale_price_cents,
          commission_cents,
          settled_at: businessNow,
        })),
      );
      return { ...statement, orders: orders.map(({ order }) => order.public_id) };
    });
  } catch (err) {
    if (isUniqueViolation(err)) return undefined;
    throw err;
  }
}

/**
 * The operator's run: every partner's period up to `periodEnd`, or up to the partner's own
 * business time when none is given. Statements come back in partner_id order.
 */
export async function runSettlement(
  deps: SettlementRunDeps,
  options: { periodEnd?: number | undefined } = {},
): Promise<StatementWithOrders[]> {
  const written: StatementWithOrders[] = [];
  for (const partner of await deps.store.settlements.partners()) {
    const now = deps.clock.now();
    const statement = await settlePartner(deps.store, partner, options.periodEnd ?? now + partner.clockOffsetMs, now);
    if (statement) written.push(statement);
  }
  if (written.some((s) => s.orders.length > 0)) deps.notifyOutbox?.();
  return written;
}

/**
 * The scheduled run: for each partner, every UTC month end its business time has passed since
 * its last statement (or its creation) is closed, oldest first, one statement each. The state is
 * the statements themselves, so a server that was down over a month end catches up on start.
 */
export async function runScheduledSettlement(deps: SettlementRunDeps): Promise<StatementWithOrders[]> {
  const written: StatementWithOrders[] = [];
  for (const partner of await deps.store.settlements.partners()) {
    const now = deps.clock.now();
    const last = (await deps.store.settlements.lastStatementEnd(partner.id)) ?? partner.createdAt;
    for (const monthEnd of monthEndsBetween(last, now + partner.clockOffsetMs)) {
      const statement = await settlePartner(deps.store, partner, monthEnd, now);
      if (statement) written.push(statement);
    }
  }
  if (written.some((s) => s.orders.length > 0)) deps.notifyOutbox?.();
  return written;
}
