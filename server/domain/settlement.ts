/**
 * The arithmetic of settlement and reporting (x-commission-defaults, Statement, TransactionTotals):
 * every commission is rounded once, per order, and every total is a sum of those per-order cents,
 * so a statement or a totals object always reconciles to the rows behind it.
 */
import { commissionCents, COMMISSION_DEFAULTS_BPS, sumCents } from './money.ts';

export type PaymentModel = 'partner_collected' | 'service_collected';

export interface CommissionRates {
  partnerCollected: number;
  serviceCollected: number;
  referral: number;
  brokerage: number;
}

export const DEFAULT_COMMISSION_RATES: CommissionRates = { ...COMMISSION_DEFAULTS_BPS };

export interface SaleAmount {
  payment_model: PaymentModel;
  sale_price_cents: number;
}

export function orderCommissionCents(order: SaleAmount, rates: CommissionRates): number {
  return commissionCents(
    order.sale_price_cents,
    order.payment_model === 'partner_collected' ? rates.partnerCollected : rates.serviceCollected,
  );
}

export interface SettledAmount extends SaleAmount {
  commission_cents: number;
}

export interface StatementTotals {
  gross_sold_cents: number;
  commission_retained_cents: number;
  amount_owed_cents: number;
  service_collected_gross_cents: number;
  commission_payable_cents: number;
  order_count: number;
}

export function statementTotals(orders: readonly SettledAmount[]): StatementTotals {
  const partner = orders.filter((o) => o.payment_model === 'partner_collected');
  const service = orders.filter((o) => o.payment_model === 'service_collected');
  const gross = sumCents(partner.map((o) => o.sale_price_cents));
  const retained = sumCents(partner.map((o) => o.commission_cents));
  return {
    gross_sold_cents: gross,
    commission_retained_cents: retained,
    // Never negative: each order's commission is at most its price while the rate is at most 100 %.
    amount_owed_cents: gross - retained,
    service_collected_gross_cents: sumCents(service.map((o) => o.sale_price_cents)),
    commission_payable_cents: sumCents(service.map((o) => o.commission_cents)),
    order_count: orders.length,
  };
}

/** A sale as the transactions report sees it: its status and, once settled, its fixed commission. */
export interface TransactionSource extends SaleAmount {
  status: string;
  settled_commission_cents: number | null;
}

const VOID_STATUSES: ReadonlySet<string> = new Set(['REFUNDED', 'CANCELLED']);

/** A refunded or cancelled sale earns nothing and sells nothing (TransactionTotals). */
export const isVoidSale = (status: string) => VOID_STATUSES.has(status);

/**
 * A settled sale keeps the commission its statement fixed (a later rate change does not rewrite
 * history); an open one shows what it would earn at the partner's current rate.
 */
export function transactionCommissionCents(row: TransactionSource, rates: CommissionRates): number {
  if (isVoidSale(row.status)) return 0;
  return row.settled_commission_cents ?? orderCommissionCents(row, rates);
}

export interface TransactionTotals {
  count: number;
  gmv_cents: number;
  commission_cents: number;
}

export function transactionTotals(rows: readonly TransactionSource[], rates: CommissionRates): TransactionTotals {
  return {
    count: rows.length,
    gmv_cents: sumCents(rows.map((r) => (isVoidSale(r.status) ? 0 : r.sale_price_cents))),
    commission_cents: sumCents(rows.map((r) => transactionCommissionCents(r, rates))),
  };
}

/** The first instant of the UTC calendar month after the one containing `ms`. */
export function nextMonthStart(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/**
 * The month ends (first instants of UTC months) in (after, upTo], oldest first: the periods a
 * scheduled run still has to close for a partner whose last statement ended at `after`.
 */
export function monthEndsBetween(after: number, upTo: number): number[] {
  const ends: number[] = [];
  for (let t = nextMonthStart(after); t <= upTo; t = nextMonthStart(t)) ends.push(t);
  return ends;
}
