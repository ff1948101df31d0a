// Settlement and reporting reads: statements (scope buy), the sales history with totals and the
// payouts (scope report). Keyset cursors bound to each list's filters, as for GET /orders.
import type { RequestHandler } from 'express';
import type { components } from '../../generated/partner.d.ts';
import type { CursorPosition } from '../domain/cursor.ts';
import { rfc3339 } from '../domain/rfc3339.ts';
import { transactionCommissionCents, transactionTotals } from '../domain/settlement.ts';
import type { PayoutKind, PayoutRow, StatementWithOrders, TransactionRow } from '../store/settlements.ts';
import { callerOf, dateWindow, partnerCursorList, queryString, type PartnerDeps } from './context.ts';

type Schemas = components['schemas'];

export function statementResource(s: StatementWithOrders): Schemas['Statement'] {
  return {
    statement_id: s.statement_id,
    period_start: rfc3339(s.period_start),
    period_end: rfc3339(s.period_end),
    gross_sold_cents: s.gross_sold_cents,
    commission_retained_cents: s.commission_retained_cents,
    amount_owed_cents: s.amount_owed_cents,
    service_collected_gross_cents: s.service_collected_gross_cents,
    commission_payable_cents: s.commission_payable_cents,
    currency: s.currency,
    order_count: s.order_count,
    orders: s.orders,
    created_at: rfc3339(s.created_at),
  };
}

export function payoutResource(p: PayoutRow): Schemas['Payout'] {
  return {
    payout_id: p.payout_id,
    kind: p.kind,
    amount_cents: p.amount_cents,
    currency: p.currency,
    paid_at: rfc3339(p.paid_at),
  };
}

const keyOf = (position: CursorPosition | undefined) =>
  position ? { at: Number(position[0]), id: String(position[1]) } : undefined;

export function listSettlements(deps: PartnerDeps): RequestHandler {
  return async (req, res) => {
    const caller = await callerOf(deps, res);
    const page = partnerCursorList(deps, req, `settlements:${caller.partner.id}`, ['from', 'to']);
    const key = keyOf(page.after);
    const rows = await deps.store.settlements.listStatements(
      {
        partnerId: caller.partner.id,
        ...dateWindow(req),
      },
      page.fetch,
      key ? { periodEnd: key.at, statementId: key.id } : undefined,
    );
    const { data, next_cursor } = page.page(rows, (r) => [r.period_end, r.statement_id]);
    const body: Schemas['StatementList'] = { data: data.map(statementResource), next_cursor };
    res.json(body);
  };
}

export function listTransactions(deps: PartnerDeps): RequestHandler {
  return async (req, res) => {
    const caller = await callerOf(deps, res);
    const page = partnerCursorList(deps, req, `transactions:${caller.partner.id}`, [
      'from',
      'to',
      'status',
      'payment_model',
    ]);
    const filters = {
      partnerId: caller.partner.id,
      status: queryString(req, 'status'),
      paymentModel: queryString(req, 'payment_model'),
      ...dateWindow(req),
    };
    const key = keyOf(page.after);
    const rates = await deps.store.settlements.commissionRates(caller.partner.id);
    const rows = await deps.store.settlements.transactions(
      filters,
      page.fetch,
      key ? { createdAt: key.at, publicId: key.id } : undefined,
    );
    const all = await deps.store.settlements.transactions(filters);
    const { data, next_cursor } = page.page(rows, (r) => [r.created_at, r.public_id]);
    const toTransaction = (r: TransactionRow): Schemas['Transaction'] => ({
      public_id: r.public_id,
      domain: r.domain,
      status: r.status as Schemas['OrderStatus'],
      payment_model: r.payment_model,
      sale_price_cents: r.sale_price_cents,
      commission_cents: transactionCommissionCents(r, rates),
      currency: r.currency,
      created_at: rfc3339(r.created_at),
      settled_at: r.settled_at === null ? null : rfc3339(r.settled_at),
      statement_id: r.statement_id,
    });
    const body: Schemas['TransactionList'] = {
      data: data.map(toTransaction),
      next_cursor,
      totals: {
        ...transactionTotals(all, rates),
        ...(deps.faults?.has('void-sales-in-gmv')
          ? { gmv_cents: all.reduce((s, r) => s + r.sale_price_cents, 0) }
          : {}),
        currency: all[0]?.currency ?? 'USD',
      },
    };
    res.json(body);
  };
}

export function listPayouts(deps: PartnerDeps): RequestHandler {
  return async (req, res) => {
    const caller = await callerOf(deps, res);
    const page = partnerCursorList(deps, req, `payouts:${caller.partner.id}`, ['kind', 'from', 'to']);
    const key = keyOf(page.after);
    const rows = await deps.store.settlements.listPayouts(
      {
        partnerId: caller.partner.id,
        kind: queryString(req, 'kind') as PayoutKind | undefined,
        ...dateWindow(req),
      },
      page.fetch,
      key ? { paidAt: key.at, payoutId: key.id } : undefined,
    );
    const { data, next_cursor } = page.page(rows, (r) => [r.paid_at, r.payout_id]);
    const body: Schemas['PayoutList'] = { data: data.map(payoutResource), next_cursor };
    res.json(body);
  };
}
