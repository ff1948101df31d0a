// Settlement and reporting over the HTTP API: the operator's run and the scheduled month-end
// run, statements, transactions with totals, payouts, and (fast-check) the reconciliation
// invariants over random sequences of sales, operator moves, refunds, runs and payouts.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commissionCents, COMMISSION_DEFAULTS_BPS } from '../../server/domain/money.ts';
import { monthEndsBetween } from '../../server/domain/settlement.ts';
import { runScheduledSettlement } from '../../server/partner/settlement-run.ts';
import { startHarness, type Harness } from './harness.ts';
import { createOrder, databases, domainSource, expectError, signedRequest, type Credential } from './support/http.ts';

const V1 = '/api/partner/v1';
const HIGH = { search: 100_000, write: 100_000, reporting: 100_000 };
const SCOPES = ['search', 'buy', 'report', 'webhook'];
const INVENTORY = 3000;
const DAY = 86_400_000;

/** Every page of a partner list, following next_cursor (small pages, to exercise the cursors). */
async function readAll(
  h: Harness,
  cred: Credential,
  path: string,
  query = '',
  limit = 3,
): Promise<{ rows: any[]; pages: any[] }> {
  const rows: any[] = [];
  const pages: any[] = [];
  let cursor: string | null = null;
  do {
    const q: string = [query, `limit=${limit}`, cursor ? `cursor=${encodeURIComponent(cursor)}` : '']
      .filter(Boolean)
      .join('&');
    const r = await signedRequest(h, cred, { path: `${V1}${path}`, query: q });
    expect(r.status, r.text).toBe(200);
    pages.push(r.body);
    rows.push(...r.body.data);
    cursor = r.body.next_cursor;
  } while (cursor);
  return { rows, pages };
}

async function adminOk(h: Harness, path: string, body?: unknown): Promise<any> {
  const r = await h.admin(path, body);
  const text = await r.text();
  expect([200, 201], text).toContain(r.status);
  return JSON.parse(text);
}

/** Moves an order along the operator's state machine to TRANSFER_COMPLETED. */
async function deliver(h: Harness, publicId: string): Promise<void> {
  await adminOk(h, `/orders/${publicId}/start-transfer`, {});
  await adminOk(h, `/orders/${publicId}/confirm-delivery`, {});
}

async function businessNow(h: Harness, partnerId: string): Promise<number> {
  const partner = await h.store.credentials.findPartner(partnerId);
  return h.clock.now() + (partner?.clockOffsetMs ?? 0);
}

/**
 * Every invariant of settlement and reporting for one partner, read through the partner API:
 * statements reconcile to their orders and tile the partner's time, each settled order is in
 * exactly one statement (and settled once), transaction totals equal their rows, and payouts
 * are listed exactly once each.
 */
async function checkInvariants(
  h: Harness,
  cred: Credential,
  expected: { payouts: Map<string, number>; commissionOf?: Map<string, number> },
) {
  const statements = (await readAll(h, cred, '/settlements')).rows;
  const { rows: transactions, pages } = await readAll(h, cred, '/transactions');
  const byId = new Map(transactions.map((t) => [t.public_id as string, t]));
  expect(byId.size).toBe(transactions.length);

  // Statements, oldest first, start where the previous one ended (the first at the partner's creation).
  const partner = await h.store.credentials.findPartner(cred.partner_id);
  const chronological = [...statements].reverse();
  chronological.forEach((s, i) => {
    const start =
      i === 0 ? new Date(partner!.createdAt).toISOString().replace('.000Z', 'Z') : chronological[i - 1].period_end;
    expect(Date.parse(s.period_start)).toBe(Date.parse(start));
    expect(Date.parse(s.period_end)).toBeGreaterThan(Date.parse(s.period_start));
  });

  const seen = new Set<string>();
  for (const s of statements) {
    expect(s.order_count).toBe(s.orders.length);
    const orders = s.orders.map((id: string) => byId.get(id));
    for (const [i, o] of orders.entries()) {
      expect(o, `order ${s.orders[i]} of ${s.statement_id} is in the transactions`).toBeDefined();
      expect(seen.has(o.public_id), `${o.public_id} in two statements`).toBe(false);
      seen.add(o.public_id);
      expect(o.status).toBe('SETTLED');
      expect(o.statement_id).toBe(s.statement_id);
      expect(o.settled_at).not.toBeNull();
    }
    const sum = (rows: any[], f: (r: any) => number) => rows.reduce((a, r) => a + f(r), 0);
    const partnerRows = orders.filter((o: any) => o.payment_model === 'partner_collected');
    const serviceRows = orders.filter((o: any) => o.payment_model === 'service_collected');
    expect(s.gross_sold_cents).toBe(sum(partnerRows, (o) => o.sale_price_cents));
    expect(s.commission_retained_cents).toBe(sum(partnerRows, (o) => o.commission_cents));
    expect(s.amount_owed_cents).toBe(s.gross_sold_cents - s.commission_retained_cents);
    expect(s.service_collected_gross_cents).toBe(sum(serviceRows, (o) => o.sale_price_cents));
    expect(s.commission_payable_cents).toBe(sum(serviceRows, (o) => o.commission_cents));
  }
  // Every settled sale is in a statement, and settled exactly once (one timeline entry, one event).
  for (const t of transactions) {
    if (t.status === 'SETTLED') expect(seen.has(t.public_id), `${t.public_id} settled but in no statement`).toBe(true);
    else expect([t.statement_id, t.settled_at]).toEqual([null, null]);
    const timeline = await h.store.orders.timeline(t.public_id);
    expect(timeline.filter((e) => e.status === 'SETTLED').length).toBe(t.status === 'SETTLED' ? 1 : 0);
    if (t.status === 'REFUNDED' || t.status === 'CANCELLED') expect(t.commission_cents).toBe(0);
    const fixed = expected.commissionOf?.get(t.public_id);
    if (fixed !== undefined && t.status === 'SETTLED') expect(t.commission_cents).toBe(fixed);
  }

  // Totals are over the whole filtered set, the same on every page, and equal the rows.
  const live = transactions.filter((t) => t.status !== 'REFUNDED' && t.status !== 'CANCELLED');
  const totals = {
    count: transactions.length,
    gmv_cents: live.reduce((a, t) => a + t.sale_price_cents, 0),
    commission_cents: transactions.reduce((a, t) => a + t.commission_cents, 0),
    currency: 'USD',
  };
  for (const page of pages) expect(page.totals).toEqual(totals);

  // Payouts: each recorded one listed once, with its amount; none invented.
  const payouts = (await readAll(h, cred, '/payouts')).rows;
  expect(new Map(payouts.map((p) => [p.payout_id as string, p.amount_cents as number]))).toEqual(expected.payouts);
  expect(payouts.length).toBe(expected.payouts.size);

  // The events history has one order.settled per settled order.
  const settledEvents = new Map<string, number>();
  let after: string | null = null;
  for (;;) {
    const r = await signedRequest(h, cred, {
      path: `${V1}/events`,
      query: `limit=1000${after ? `&after_id=${after}` : ''}`,
    });
    expect(r.status, r.text).toBe(200);
    for (const e of r.body.events)
      if (e.type === 'order.settled')
        settledEvents.set(e.data.order.public_id, (settledEvents.get(e.data.order.public_id) ?? 0) + 1);
    if (r.body.events.length === 0) break;
    after = r.body.next_cursor;
  }
  expect(new Set(settledEvents.keys())).toEqual(seen);
  for (const n of settledEvents.values()) expect(n).toBe(1);
}

describe.each(databases())('settlement ($name)', ({ databaseUrl }) => {
  let h: Harness;
  const take = domainSource(INVENTORY);

  beforeAll(async () => {
    h = await startHarness({ databaseUrl, inventorySize: INVENTORY, dispatch: false });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('settles delivered orders once, in one statement, and answers the partner reads', async () => {
    const cred = await h.mint({ scopes: SCOPES, rate_limits: HIGH });
    const [a, b, c, d] = [await take(h, cred), await take(h, cred), await take(h, cred), await take(h, cred)];
    const oa = await createOrder(h, cred, a);
    const ob = await createOrder(h, cred, b);
    const oc = await createOrder(h, cred, c);
    const od = await createOrder(h, cred, d);
    await deliver(h, oa.public_id);
    await deliver(h, ob.public_id);
    await adminOk(h, `/orders/${oc.public_id}/start-transfer`, {});
    await adminOk(h, `/orders/${od.public_id}/refund`, {});
    h.clock.advance(1000);

    const run = await adminOk(h, '/settlements/run', {});
    const mine = run.statements.filter((s: any) => s.partner_id === cred.partner_id);
    expect(mine).toHaveLength(1);
    const s = mine[0];
    expect(new Set(s.orders)).toEqual(new Set([oa.public_id, ob.public_id]));
    const rate = COMMISSION_DEFAULTS_BPS.partnerCollected;
    const commission = commissionCents(a.price, rate) + commissionCents(b.price, rate);
    expect(s).toMatchObject({
      gross_sold_cents: a.price + b.price,
      commission_retained_cents: commission,
      amount_owed_cents: a.price + b.price - commission,
      order_count: 2,
      service_collected_gross_cents: 0,
      commission_payable_cents: 0,
      currency: 'USD',
    });
    // run answers in partner_id order
    const ids = run.statements.map((x: any) => x.partner_id);
    expect(ids).toEqual([...ids].sort());

    // A re-run with the same period writes nothing new.
    const again = await adminOk(h, '/settlements/run', { period_end: s.period_end });
    expect(again.statements.filter((x: any) => x.partner_id === cred.partner_id)).toEqual([]);

    const order = await signedRequest(h, cred, { path: `${V1}/orders/${oa.public_id}` });
    expect(order.body.status).toBe('SETTLED');

    const list = await signedRequest(h, cred, { path: `${V1}/settlements` });
    expect(list.status, list.text).toBe(200);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0].statement_id).toBe(s.statement_id);
    expect(list.body.data[0].partner_id).toBeUndefined();

    const refunded = await signedRequest(h, cred, { path: `${V1}/transactions`, query: 'status=REFUNDED' });
    expect(refunded.body.data.map((t: any) => t.public_id)).toEqual([od.public_id]);
    expect(refunded.body.totals).toEqual({ count: 1, gmv_cents: 0, commission_cents: 0, currency: 'USD' });
    const partnerCollected = await signedRequest(h, cred, {
      path: `${V1}/transactions`,
      query: 'payment_model=partner_collected',
    });
    expect(partnerCollected.body.totals.count).toBe(4);
    expect(partnerCollected.body.totals.gmv_cents).toBe(a.price + b.price + c.price);

    // Payouts.
    const p1 = await adminOk(h, '/payouts', { partner_id: cred.partner_id, amount_cents: 1234, kind: 'brokerage' });
    expect(p1).toMatchObject({ partner_id: cred.partner_id, amount_cents: 1234, kind: 'brokerage', currency: 'USD' });
    h.clock.advance(1000);
    const p2 = await adminOk(h, '/payouts', {
      partner_id: cred.partner_id,
      amount_cents: 99,
      kind: 'service_collected_commission',
    });
    const payouts = await signedRequest(h, cred, { path: `${V1}/payouts` });
    expect(payouts.body.data.map((p: any) => p.payout_id)).toEqual([p2.payout_id, p1.payout_id]);
    const brokerage = await signedRequest(h, cred, { path: `${V1}/payouts`, query: 'kind=brokerage' });
    expect(brokerage.body.data.map((p: any) => p.payout_id)).toEqual([p1.payout_id]);
    const unknown = await h.admin('/payouts', { partner_id: 'ptn_nobodyhere1234', amount_cents: 5, kind: 'brokerage' });
    expect(unknown.status).toBe(404);

    await checkInvariants(h, cred, {
      payouts: new Map([
        [p1.payout_id, 1234],
        [p2.payout_id, 99],
      ]),
    });
  });

  it('never writes a period twice or settles an order twice under concurrent runs', async () => {
    const cred = await h.mint({ scopes: SCOPES, rate_limits: HIGH });
    for (let i = 0; i < 3; i++) {
      const o = await createOrder(h, cred, await take(h, cred));
      await deliver(h, o.public_id);
    }
    h.clock.advance(1000);
    const periodEnd = new Date(await businessNow(h, cred.partner_id)).toISOString();
    const runs = await Promise.all([1, 2, 3].map(() => adminOk(h, '/settlements/run', { period_end: periodEnd })));
    const mine = runs.flatMap((r) => r.statements.filter((s: any) => s.partner_id === cred.partner_id));
    expect(mine).toHaveLength(1);
    expect(mine[0].order_count).toBe(3);
    await checkInvariants(h, cred, { payouts: new Map() });
  });

  it('binds cursors to their filters and checks scopes', async () => {
    const cred = await h.mint({ scopes: SCOPES, rate_limits: HIGH });
    for (let i = 0; i < 3; i++) await createOrder(h, cred, await take(h, cred));
    const first = await signedRequest(h, cred, { path: `${V1}/transactions`, query: 'limit=1' });
    expect(first.body.next_cursor).toEqual(expect.any(String));
    expect(first.body.totals.count).toBe(3);
    const other = await signedRequest(h, cred, {
      path: `${V1}/transactions`,
      query: `limit=1&status=SETTLED&cursor=${encodeURIComponent(first.body.next_cursor)}`,
    });
    expectError(other, 'invalid_cursor');
    const elsewhere = await signedRequest(h, cred, {
      path: `${V1}/payouts`,
      query: `cursor=${encodeURIComponent(first.body.next_cursor)}`,
    });
    expectError(elsewhere, 'invalid_cursor');

    const buyOnly = await h.mint({ scopes: ['buy'], rate_limits: HIGH });
    expect((await signedRequest(h, buyOnly, { path: `${V1}/settlements` })).status).toBe(200);
    expectError(await signedRequest(h, buyOnly, { path: `${V1}/transactions` }), 'forbidden');
    expectError(await signedRequest(h, buyOnly, { path: `${V1}/payouts` }), 'forbidden');
  });

  it('keeps every reconciliation invariant over random sales, moves, refunds, runs and payouts', async () => {
    type Action =
      | { kind: 'sale' }
      | {
          kind: 'move';
          order: number;
          action:
            'start-transfer' | 'confirm-delivery' | 'hold' | 'clear-hold' | 'cancel' | 'refund' | 'partner-refund';
        }
      | { kind: 'deliver'; order: number }
      | { kind: 'advance'; days: number }
      | { kind: 'run'; offsetDays: number | null }
      | { kind: 'payout'; amount: number; payout: 'service_collected_commission' | 'brokerage' | 'referral_commission' }
      | { kind: 'rate'; bps: number };
    const action: fc.Arbitrary<Action> = fc.oneof(
      { weight: 4, arbitrary: fc.constant({ kind: 'sale' as const }) },
      {
        weight: 6,
        arbitrary: fc.record({
          kind: fc.constant('move' as const),
          order: fc.nat(20),
          action: fc.constantFrom<
            'start-transfer' | 'confirm-delivery' | 'hold' | 'clear-hold' | 'cancel' | 'refund' | 'partner-refund'
          >(
            'start-transfer',
            'start-transfer',
            'confirm-delivery',
            'confirm-delivery',
            'hold',
            'clear-hold',
            'cancel',
            'refund',
            'partner-refund',
          ),
        }),
      },
      // Most sales should get as far as settlement, so delivery is one action of its own.
      { weight: 5, arbitrary: fc.record({ kind: fc.constant('deliver' as const), order: fc.nat(20) }) },
      {
        weight: 2,
        arbitrary: fc.record({ kind: fc.constant('advance' as const), days: fc.integer({ min: 1, max: 45 }) }),
      },
      {
        weight: 2,
        arbitrary: fc.record({
          kind: fc.constant('run' as const),
          offsetDays: fc.option(fc.integer({ min: -40, max: 20 }), { freq: 2 }),
        }),
      },
      {
        weight: 1,
        arbitrary: fc.record({
          kind: fc.constant('payout' as const),
          amount: fc.integer({ min: 1, max: 1_000_000 }),
          payout: fc.constantFrom<'service_collected_commission' | 'brokerage' | 'referral_commission'>(
            'service_collected_commission',
            'brokerage',
            'referral_commission',
          ),
        }),
      },
      {
        weight: 1,
        arbitrary: fc.record({ kind: fc.constant('rate' as const), bps: fc.integer({ min: 0, max: 10_000 }) }),
      },
    );

    let settledTotal = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 6, maxLength: 30, size: 'medium' }), async (generated) => {
        // Every sequence ends with a run up to now, so what was delivered gets settled.
        const actions: Action[] = [...generated, { kind: 'run', offsetDays: null }];
        const cred = await h.mint({ scopes: SCOPES, rate_limits: HIGH });
        const orders: Array<{ public_id: string; price: number }> = [];
        const payouts = new Map<string, number>();
        const commissionOf = new Map<string, number>();
        let bps: number = COMMISSION_DEFAULTS_BPS.partnerCollected;
        for (const a of actions) {
          h.clock.advance(1000);
          if (a.kind === 'sale') {
            const d = await take(h, cred);
            const o = await createOrder(h, cred, d);
            orders.push({ public_id: o.public_id, price: d.price });
          } else if (a.kind === 'move') {
            const o = orders[a.order % Math.max(1, orders.length)];
            if (!o) continue;
            const status =
              a.action === 'partner-refund'
                ? (
                    await signedRequest(h, cred, {
                      method: 'POST',
                      path: `${V1}/refunds`,
                      body: { public_id: o.public_id },
                    })
                  ).status
                : await h.admin(`/orders/${o.public_id}/${a.action}`, {}).then(async (r) => (await r.text(), r.status));
            expect([200, 409]).toContain(status);
          } else if (a.kind === 'deliver') {
            const o = orders[a.order % Math.max(1, orders.length)];
            if (!o) continue;
            for (const step of ['start-transfer', 'confirm-delivery']) {
              const r = await h.admin(`/orders/${o.public_id}/${step}`, {});
              await r.text();
              expect([200, 409]).toContain(r.status);
            }
          } else if (a.kind === 'advance') {
            await adminOk(h, `/partners/${cred.partner_id}/clock/advance`, { seconds: (a.days * DAY) / 1000 });
          } else if (a.kind === 'run') {
            // Commission is fixed at settlement, at the rate in force then.
            const due = (await h.store.settlements.ordersToSettle(cred.partner_id, Number.MAX_SAFE_INTEGER)).map(
              (o) => o.public_id,
            );
            const body =
              a.offsetDays === null
                ? {}
                : { period_end: new Date((await businessNow(h, cred.partner_id)) + a.offsetDays * DAY).toISOString() };
            const run = await adminOk(h, '/settlements/run', body);
            const mine = run.statements.filter((s: any) => s.partner_id === cred.partner_id);
            expect(mine.length).toBeLessThanOrEqual(1);
            for (const id of mine[0]?.orders ?? []) {
              expect(due).toContain(id);
              commissionOf.set(id, commissionCents(orders.find((o) => o.public_id === id)!.price, bps));
            }
            // Running again for the same period end writes nothing for this partner.
            if (mine[0]) {
              const again = await adminOk(h, '/settlements/run', { period_end: mine[0].period_end });
              expect(again.statements.filter((s: any) => s.partner_id === cred.partner_id)).toEqual([]);
            }
          } else if (a.kind === 'payout') {
            const p = await adminOk(h, '/payouts', {
              partner_id: cred.partner_id,
              amount_cents: a.amount,
              kind: a.payout,
            });
            expect(payouts.has(p.payout_id)).toBe(false);
            payouts.set(p.payout_id, a.amount);
          } else {
            bps = a.bps;
            await h.store.settlements.setCommissionRates(
              cred.partner_id,
              { ...COMMISSION_DEFAULTS_BPS, partnerCollected: bps },
              h.clock.now(),
            );
          }
        }
        settledTotal += commissionOf.size;
        await checkInvariants(h, cred, { payouts, commissionOf });
      }),
      { numRuns: Number(process.env.SETTLEMENT_RUNS ?? 15) },
    );
    // The sequences must reach settlement often enough to test it.
    console.log('settled orders across runs', settledTotal);
    expect(settledTotal).toBeGreaterThan(0);
  }, 240_000);
});

describe.each(databases())('scheduled settlement ($name)', ({ databaseUrl }) => {
  let h: Harness;
  const take = domainSource(INVENTORY);

  beforeAll(async () => {
    h = await startHarness({ databaseUrl, inventorySize: INVENTORY, dispatch: false });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('closes each UTC month end passed since the last run, once', async () => {
    h.clock.set(Date.parse('2026-11-22T09:30:00Z'));
    const cred = await h.mint({ scopes: SCOPES, rate_limits: HIGH });
    const early = await createOrder(h, cred, await take(h, cred));
    await deliver(h, early.public_id);
    // Nothing has passed a month end yet.
    expect(
      (await runScheduledSettlement({ store: h.store, clock: h.clock })).filter(
        (s) => s.partner_id === cred.partner_id,
      ),
    ).toEqual([]);

    h.clock.set(Date.parse('2026-12-10T12:00:00Z'));
    const december = await createOrder(h, cred, await take(h, cred));
    await deliver(h, december.public_id);
    h.clock.set(Date.parse('2027-02-03T00:00:00Z'));
    const written = (await runScheduledSettlement({ store: h.store, clock: h.clock })).filter(
      (s) => s.partner_id === cred.partner_id,
    );
    expect(
      written.map((s) => [new Date(s.period_start).toISOString(), new Date(s.period_end).toISOString(), s.orders]),
    ).toEqual([
      ['2026-11-22T09:30:00.000Z', '2026-12-01T00:00:00.000Z', [early.public_id]],
      ['2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z', [december.public_id]],
      ['2027-01-01T00:00:00.000Z', '2027-02-01T00:00:00.000Z', []],
    ]);
    // Run again at the same time: nothing new.
    expect(
      (await runScheduledSettlement({ store: h.store, clock: h.clock })).filter(
        (s) => s.partner_id === cred.partner_id,
      ),
    ).toEqual([]);

    // A sandbox partner's test clock decides its month ends.
    await adminOk(h, `/partners/${cred.partner_id}/clock/advance`, { seconds: 30 * 86_400 });
    const ahead = (await runScheduledSettlement({ store: h.store, clock: h.clock })).filter(
      (s) => s.partner_id === cred.partner_id,
    );
    expect(ahead.map((s) => new Date(s.period_end).toISOString())).toEqual(['2027-03-01T00:00:00.000Z']);
    await checkInvariants(h, cred, { payouts: new Map() });
  });

  it('lists the month ends in (after, upTo]', () => {
    expect(monthEndsBetween(Date.parse('2026-12-01T00:00:00Z'), Date.parse('2026-12-01T00:00:00Z'))).toEqual([]);
    expect(
      monthEndsBetween(Date.parse('2026-11-30T23:59:59Z'), Date.parse('2027-01-01T00:00:00Z')).map((t) =>
        new Date(t).toISOString(),
      ),
    ).toEqual(['2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z']);
  });
});
