// GET /transactions totals with void sales present (`#/components/schemas/TransactionTotals`):
// refunded and cancelled rows count in `count` but add nothing to `gmv_cents` or
// `commission_cents`, over every row the filters match (not only the page). A new partner records
// three orders, refunds one (POST /refunds) and has the operator cancel another, then reads its
// totals unfiltered, by status, and one row a page. Part of the lifecycle family (it needs the
// operator API to cancel).
import { expect, expectStatus, type Check, type Context } from '../context.ts';
import { jsonOf, type Credentials, type Exchange } from '../http.ts';
import { listedDomains, partnerOp, recordOrder, type OrderJson } from './orders-support.ts';

interface Row {
  public_id: string;
  status: string;
  sale_price_cents: number;
  commission_cents: number;
}
interface Totals {
  count?: unknown;
  gmv_cents?: unknown;
  commission_cents?: unknown;
}

const FAST = { search: 100_000, write: 100_000, reporting: 100_000 };

async function transactions(
  ctx: Context,
  who: Credentials,
  query: string,
): Promise<{ rows: Row[]; totals: Totals; exchange: Exchange }> {
  const op = partnerOp(ctx, 'listTransactions');
  const exchange = await ctx.http.signed({
    target: `${op.operation.path}?${query}`,
    credentials: who,
    operation: op.operation,
    rateClass: op.rateClass,
  });
  expectStatus(exchange, 200, `GET /transactions?${query}`);
  const body = jsonOf(exchange) as { data?: Row[]; totals?: Totals } | undefined;
  expect(
    Array.isArray(body?.data) && typeof body.totals === 'object' && body.totals !== null,
    `GET /transactions?${query}: the answer is not { data: [...], totals: {...} }`,
    [exchange],
  );
  return { rows: body.data, totals: body.totals, exchange };
}

export const transactionTotalsCheck: Check = {
  id: 'partner.reporting.transactions.totals-void-sales',
  rules: [
    'spec:partner#/components/schemas/TransactionTotals',
    'seed:partner › Resources and their fields › Referral links and reporting records',
  ],
  name: 'GET /transactions totals: refunded and cancelled rows count in count but add nothing to gmv_cents or commission_cents, over every matching row (not only the page), filtered by status too',
  async run(ctx) {
    // A partner of its own: its totals are exactly the orders this check records.
    const who = await ctx.admin!.mint({ scopes: ['search', 'buy', 'report'], rate_limits: FAST });
    const listed = await listedDomains(ctx, who, 3);
    const orders: OrderJson[] = [];
    for (const l of listed) orders.push((await recordOrder(ctx, who, l, `recording an order for ${l.domain}`)).order);
    const [toRefund, toCancel, sold] = orders as [OrderJson, OrderJson, OrderJson];
    const refund = partnerOp(ctx, 'refundOrder');
    const refundExchange = await ctx.http.signed({
      method: 'POST',
      target: refund.operation.path,
      credentials: who,
      body: JSON.stringify({ public_id: toRefund.public_id, reason: 'conformance: totals with a refunded sale' }),
      operation: refund.operation,
      rateClass: refund.rateClass,
    });
    expectStatus(refundExchange, 200, `a partner refund of ${toRefund.public_id} (EXTERNALLY_PAID)`);
    const cancel = await ctx.admin!.post(`/orders/${encodeURIComponent(toCancel.public_id)}/cancel`, {});
    expectStatus(cancel.exchange, 200, `the operator cancelling ${toCancel.public_id} (EXTERNALLY_PAID)`);

    const all = await transactions(ctx, who, 'limit=200');
    const byId = new Map(all.rows.map((r) => [r.public_id, r]));
    const statuses = orders.map((o) => `${o.public_id} ${byId.get(o.public_id)?.status ?? '(missing)'}`).join(', ');
    expect(
      all.rows.length === 3 && orders.every((o) => byId.has(o.public_id)),
      `GET /transactions of a partner with exactly three orders lists ${all.rows.length} rows (${statuses})`,
      [all.exchange],
    );
    const soldRow = byId.get(sold.public_id)!;
    const why = `GET /transactions totals of three sales, one refunded and one cancelled (${statuses})`;
    expect(
      all.totals.count === 3,
      `${why}: count is ${JSON.stringify(all.totals.count)}; refunded and cancelled rows count too, so 3`,
      [all.exchange],
    );
    expect(
      all.totals.gmv_cents === soldRow.sale_price_cents,
      `${why}: gmv_cents is ${JSON.stringify(all.totals.gmv_cents)}; refunded and cancelled rows add nothing, so it is the one live sale's ${soldRow.sale_price_cents} (the three together make ${orders.reduce((s, o) => s + o.sale_price_cents, 0)})`,
      [all.exchange],
    );
    expect(
      all.totals.commission_cents === soldRow.commission_cents,
      `${why}: commission_cents is ${JSON.stringify(all.totals.commission_cents)}; refunded and cancelled rows add nothing, so it is the live sale's row commission_cents ${soldRow.commission_cents}`,
      [all.exchange],
    );
    // Totals are over every matching row, not the page; and a filter to void rows totals nothing.
    const paged = await transactions(ctx, who, 'limit=1');
    expect(
      paged.totals.count === 3 && paged.totals.gmv_cents === soldRow.sale_price_cents,
      `GET /transactions?limit=1: totals count ${JSON.stringify(paged.totals.count)}, gmv_cents ${JSON.stringify(paged.totals.gmv_cents)}; totals cover every matching row, not the page (3 and ${soldRow.sale_price_cents})`,
      [paged.exchange],
    );
    const voidStatus = byId.get(toRefund.public_id)!.status;
    const voided = await transactions(ctx, who, `status=${encodeURIComponent(voidStatus)}&limit=200`);
    expect(
      voided.totals.count === 1 && voided.totals.gmv_cents === 0 && voided.totals.commission_cents === 0,
      `GET /transactions?status=${voidStatus}: totals count ${JSON.stringify(voided.totals.count)}, gmv_cents ${JSON.stringify(voided.totals.gmv_cents)}, commission_cents ${JSON.stringify(voided.totals.commission_cents)}; the one refunded row counts, and adds nothing (1, 0, 0)`,
      [voided.exchange],
    );
  },
};
