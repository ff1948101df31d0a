// Lifecycles end to end through the operator API (seed "States and transitions"; the contract's
// `x-transitions` of applyOrderAction and applyBrokerageAction, OrderStatus and BrokerageStatus,
// refundOrder, runSettlement, x-commission-defaults, x-quote-validity-seconds and
// x-session-validity-seconds). Every allowed move succeeds, lands where x-transitions says and
// writes its events exactly once, with `data` as the order or case was at that moment; every
// other move is 409 `invalid_state` naming the current status and changes nothing. Partner
// refunds stop at TRANSFER_COMPLETED; a settlement run's statement reconciles to the cent; quotes
// and checkout sessions expire on the partner's test clock. The moves and the numbers are read
// from the contract, never assumed.
import { randomUUID } from 'node:crypto';
import { CheckFailure, expect, expectStatus, oncePerRun, type Context, type Family } from '../context.ts';
import { jsonOf, type Credentials, type Exchange } from '../http.ts';
import { openCheckout, pagePath, paidOrder, readOrder } from './checkout-support.ts';
import { expectCode } from './errors.ts';
import {
  eventsAfter,
  listedDomain,
  listedDomains,
  orderRequest,
  partnerOp,
  postOrder,
  recordOrder,
  unlistedDomain,
  type EventJson,
} from './orders-support.ts';
import { transactionTotalsCheck } from './transaction-totals.ts';

type Partner = Credentials & { partnerId: string };
type Model = 'partner_collected' | 'service_collected';

interface Transition {
  from: string[];
  to: string | Record<string, string>;
  event: string;
  webhook: boolean;
  'also-writes'?: Array<{ event: string; webhook: boolean }>;
  requires?: string[];
}

interface AdminOrder {
  public_id: string;
  domain: string;
  status: string;
  sale_price_cents: number;
  currency: string;
  payment_model: Model;
  timeline: Array<{ status: string; event_type: string | null; event_id: string | null }>;
}

interface EventBody extends EventJson {
  data?: { order?: Record<string, unknown>; case?: Record<string, unknown> };
}

const FAST = { search: 100_000, write: 100_000, reporting: 100_000 };

function transitions(ctx: Context, operationId: string): Record<string, Transition> {
  const t = ctx.spec.extension<Record<string, Transition>>('admin', 'x-transitions', operationId);
  if (!t || Object.keys(t).length === 0)
    throw new CheckFailure(`the operator contract's ${operationId} has no x-transitions to check against`);
  return t;
}

const statusesOf = (ctx: Context, schema: string) =>
  (ctx.spec.documents.partner.components as { schemas: Record<string, { enum?: string[] }> }).schemas[schema]?.enum ??
  [];

const target = (t: Transition, model: Model) => (typeof t.to === 'string' ? t.to : (t.to[model] ?? ''));

async function partner(
  ctx: Context,
  scopes = ['search', 'buy', 'embed', 'broker', 'report', 'webhook'],
): Promise<Partner> {
  return ctx.admin!.mint({ scopes, rate_limits: FAST });
}

// ---------------------------------------------------------------------------------------------
// Orders in any status, by the moves of the contract

/** The operator moves that lead from a paid order to `status` (the first of x-transitions' paths). */
const ROUTES: Record<string, string[]> = {
  EXTERNALLY_PAID: [],
  PAID: [],
  MANUAL_REVIEW: ['hold'],
  TRANSFER_IN_PROGRESS: ['start-transfer'],
  TRANSFER_COMPLETED: ['start-transfer', 'confirm-delivery'],
  REFUNDED: ['refund'],
  CANCELLED: ['cancel'],
};

async function move(
  ctx: Context,
  publicId: string,
  action: string,
  body: unknown = {},
): Promise<{ status: number; order: AdminOrder; exchange: Exchange }> {
  const res = await ctx.admin!.post(`/orders/${encodeURIComponent(publicId)}/${action}`, body);
  return { status: res.status, order: res.body as AdminOrder, exchange: res.exchange };
}

async function settle(
  ctx: Context,
  periodEnd?: string,
): Promise<{ statements: Array<Record<string, unknown>>; exchange: Exchange }> {
  const res = await ctx.admin!.post('/settlements/run', periodEnd ? { period_end: periodEnd } : {});
  if (res.status !== 200) throw new CheckFailure(`the settlement run answered ${res.status}`, [res.exchange]);
  return {
    statements: (res.body as { statements?: Array<Record<string, unknown>> }).statements ?? [],
    exchange: res.exchange,
  };
}

/** A new order of the partner in `status`, paid by `model` (SETTLED through a settlement run). */
async function orderIn(ctx: Context, who: Partner, status: string, model: Model): Promise<AdminOrder> {
  const listed = await listedDomain(ctx, who);
  const publicId =
    model === 'service_collected'
      ? await paidOrder(ctx, who, listed)
      : (await recordOrder(ctx, who, listed, `recording an order to bring to ${status}`)).order.public_id;
  let order: AdminOrder | undefined;
  for (const action of status === 'SETTLED' ? ROUTES.TRANSFER_COMPLETED! : (ROUTES[status] ?? [])) {
    const moved = await move(ctx, publicId, action);
    if (moved.status !== 200)
      throw new CheckFailure(
        `bringing ${publicId} to ${status}: the operator move ${action} answered ${moved.status}`,
        [moved.exchange],
      );
    order = moved.order;
  }
  if (status === 'SETTLED') {
    await settle(ctx);
    order = { ...order!, status: 'SETTLED' };
  }
  if (!order) {
    const read = await readOrder(ctx, who, publicId);
    expectStatus(read, 200, `reading the new order ${publicId}`);
    order = jsonOf(read) as AdminOrder;
  }
  expect(order.status === status, `bringing ${publicId} to ${status} ended in ${order.status}`);
  return order;
}

/** The partner's events about one order (or case) after `after`. */
async function eventsOf(
  ctx: Context,
  who: Credentials,
  id: string,
  after: string | null,
): Promise<{ events: EventBody[]; exchanges: Exchange[] }> {
  const read = await eventsAfter(ctx, who, after ?? undefined);
  const about = (read.events as EventBody[]).filter(
    (e) => e.data?.order?.public_id === id || e.data?.case?.case_id === id,
  );
  return { events: about, exchanges: read.exchanges.slice(-1) };
}

async function lastEventId(ctx: Context, who: Credentials): Promise<string | null> {
  return (await eventsAfter(ctx, who)).last;
}

/** Fails unless `events` are exactly `expected` (types, each once) and each carries the order as it is now. */
function expectEventsOnce(
  events: EventBody[],
  expected: string[],
  order: { public_id: string; status: string; domain: string; sale_price_cents: number; currency: string },
  why: string,
  exchanges: Exchange[],
): void {
  const types = events.map((e) => e.type).sort();
  expect(
    JSON.stringify(types) === JSON.stringify([...expected].sort()),
    `${why}: the event history gained ${types.join(', ') || 'nothing'} for ${order.public_id}; the contract writes ${expected.join(' and ')}, each exactly once`,
    exchanges,
  );
  for (const e of events) {
    const o = e.data?.order ?? {};
    for (const key of ['public_id', 'status', 'domain', 'sale_price_cents', 'currency'] as const) {
      expect(
        o[key] === order[key],
        `${why}: event ${e.id} (${e.type}) says ${key} ${JSON.stringify(o[key])}; the order at that moment had ${JSON.stringify(order[key])}`,
        exchanges,
      );
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Brokerage cases

interface Case {
  case_id: string;
  status: string;
  domain: string;
  tier: string;
  currency?: string;
  final_price_cents?: number | null;
}

async function openCase(ctx: Context, who: Partner): Promise<Case> {
  const op = partnerOp(ctx, 'createBrokerageCase');
  const e = await ctx.http.signed({
    method: 'POST',
    target: op.operation.path,
    credentials: who,
    body: JSON.stringify({
      domain: unlistedDomain(),
      tier: 'managed',
      buyer_email: 'buyer.conformance@example.org',
      budget: 750000,
    }),
    operation: op.operation,
    rateClass: op.rateClass,
  });
  expectStatus(e, 201, 'opening a brokerage case');
  return jsonOf(e) as Case;
}

async function caseMove(ctx: Context, caseId: string, action: string, body: Record<string, unknown> = {}) {
  const res = await ctx.admin!.post(`/brokerage/${encodeURIComponent(caseId)}/${action}`, body);
  return { status: res.status, body: res.body as Case, exchange: res.exchange };
}

const bodyFor = (t: Transition) => (t.requires?.includes('final_price_cents') ? { final_price_cents: 654321 } : {});

/** A new case of the partner in `status`: the shortest route through x-transitions from `open`. */
async function caseIn(ctx: Context, who: Partner, status: string, moves: Record<string, Transition>): Promise<Case> {
  let c = await openCase(ctx, who);
  const route: string[] = [];
  const search = (from: string, path: string[], seen: Set<string>): string[] | undefined => {
    if (from === status) return path;
    for (const [action, t] of Object.entries(moves)) {
      const to = target(t, 'partner_collected');
      if (t.from.includes(from) && !seen.has(to)) {
        const found = search(to, [...path, action], new Set([...seen, to]));
        if (found) return found;
      }
    }
    return undefined;
  };
  route.push(...(search(c.status, [], new Set([c.status])) ?? []));
  for (const action of route) {
    const moved = await caseMove(ctx, c.case_id, action, bodyFor(moves[action]!));
    if (moved.status !== 200)
      throw new CheckFailure(`bringing case ${c.case_id} to ${status}: ${action} answered ${moved.status}`, [
        moved.exchange,
      ]);
    c = moved.body;
  }
  expect(c.status === status, `bringing case ${c.case_id} to ${status} ended in ${c.status}`);
  return c;
}

// ---------------------------------------------------------------------------------------------

const commission = (cents: number, bps: number) => Math.floor((cents * bps + 5000) / 10000);

/** The family's partner-collected and hosted-checkout partner (its test clock is never moved). */
const mainPartner = (ctx: Context): Promise<Partner> => oncePerRun(ctx, 'lifecycle partner', () => partner(ctx));

export const lifecycleFamily: Family = {
  name: 'lifecycle',
  surface: 'partner',
  description:
    'Order and brokerage moves through the operator API (allowed ones once, with their events; others 409 invalid_state), partner refunds, settlement to the cent, quote and checkout expiry on the test clock',
  needs: ['admin', 'writes'],
  checks: [
    {
      id: 'partner.lifecycle.order.allowed-moves',
      rules: [
        'spec:admin:applyOrderAction#/x-transitions',
        'spec:partner#/components/schemas/OrderStatus/x-transitions',
        'seed:partner › States and transitions',
      ],
      name: 'every allowed order move (x-transitions, both payment models) answers 200 with the new status and writes its events exactly once, carrying the order as it was then',
      async run(ctx) {
        const who = await mainPartner(ctx);
        const moves = transitions(ctx, 'applyOrderAction');
        let cases = 0;
        for (const [action, t] of Object.entries(moves)) {
          for (const from of t.from) {
            for (const model of ['partner_collected', 'service_collected'] as const) {
              if (
                (from === 'EXTERNALLY_PAID' && model !== 'partner_collected') ||
                (from === 'PAID' && model !== 'service_collected')
              )
                continue;
              // One payment model is enough where the move does not depend on it.
              if (
                !['EXTERNALLY_PAID', 'PAID'].includes(from) &&
                model === 'service_collected' &&
                typeof t.to === 'string'
              )
                continue;
              const order = await orderIn(ctx, who, from, model);
              const before = await lastEventId(ctx, who);
              const moved = await move(ctx, order.public_id, action);
              const to = target(t, model);
              expect(
                moved.status === 200,
                `${action} from ${from} (${model}) is allowed by x-transitions but answered ${moved.status}`,
                [moved.exchange],
              );
              expect(
                moved.order.status === to,
                `${action} from ${from} (${model}) answered status ${moved.order.status}; x-transitions says ${to}`,
                [moved.exchange],
              );
              const last = moved.order.timeline?.[moved.order.timeline.length - 1];
              expect(
                last?.status === to && last.event_type === t.event,
                `after ${action} the last timeline entry is ${JSON.stringify(last)}; it must be status ${to} with event ${t.event}`,
                [moved.exchange],
              );
              const { events, exchanges } = await eventsOf(ctx, who, order.public_id, before);
              expectEventsOnce(
                events,
                [t.event, ...(t['also-writes'] ?? []).map((x) => x.event)],
                { ...moved.order, status: to },
                `${action} from ${from} (${model})`,
                [moved.exchange, ...exchanges],
              );
              cases++;
            }
          }
        }
        // One order's whole life: every event keeps the order as it was at its moment.
        const life = await orderIn(ctx, who, 'EXTERNALLY_PAID', 'partner_collected');
        const statuses = ['EXTERNALLY_PAID'];
        for (const action of ['hold', 'clear-hold', 'start-transfer', 'confirm-delivery']) {
          const moved = await move(ctx, life.public_id, action);
          expect(moved.status === 200, `${action} of ${life.public_id} answered ${moved.status}`, [moved.exchange]);
          statuses.push(moved.order.status);
        }
        const { events, exchanges } = await eventsOf(ctx, who, life.public_id, null);
        const main = events.filter((e) => e.type.startsWith('order.'));
        expect(
          JSON.stringify(main.map((e) => e.data?.order?.status)) === JSON.stringify(statuses),
          `the events of ${life.public_id} carry the statuses ${main.map((e) => e.data?.order?.status).join(' → ')}; as the order moved they must be ${statuses.join(' → ')} (events never change)`,
          exchanges,
        );
        ctx.log(`${cases} allowed moves checked`);
      },
    },
    {
      id: 'partner.lifecycle.order.forbidden-moves',
      rules: [
        'spec:admin:applyOrderAction#/x-transitions',
        'spec:admin:applyOrderAction#/description',
        'spec:partner#/components/schemas/OrderStatus/x-final-states',
      ],
      name: 'every move x-transitions does not allow, from every status, is 409 invalid_state naming the current status, and changes nothing (status, timeline, events)',
      async run(ctx) {
        const who = await mainPartner(ctx);
        const moves = transitions(ctx, 'applyOrderAction');
        const all = statusesOf(ctx, 'OrderStatus');
        expect(all.length > 0, 'the contract lists no order statuses');
        for (const status of all) {
          const forbidden = Object.entries(moves).filter(([, t]) => !t.from.includes(status));
          if (forbidden.length === 0) continue;
          const order = await orderIn(ctx, who, status, status === 'PAID' ? 'service_collected' : 'partner_collected');
          const before = await lastEventId(ctx, who);
          const timeline = (jsonOf(await readOrder(ctx, who, order.public_id)) as AdminOrder).timeline.length;
          for (const [action] of forbidden) {
            const moved = await move(ctx, order.public_id, action);
            expectCode(ctx, moved.exchange, 'invalid_state', `${action} of an order in ${status}`, 'partner');
            expect(
              String((jsonOf(moved.exchange) as { message?: unknown }).message).includes(status),
              `the invalid_state message must name the current status ${status}, got "${String((jsonOf(moved.exchange) as { message?: unknown }).message)}"`,
              [moved.exchange],
            );
          }
          const after = await readOrder(ctx, who, order.public_id);
          const now = jsonOf(after) as AdminOrder;
          expect(
            now.status === status && now.timeline.length === timeline,
            `after ${forbidden.length} refused moves ${order.public_id} is ${now.status} with ${now.timeline.length} timeline entries; it must still be ${status} with ${timeline}`,
            [after],
          );
          const { events, exchanges } = await eventsOf(ctx, who, order.public_id, before);
          expect(
            events.length === 0,
            `refused moves of ${order.public_id} (${status}) wrote events: ${events.map((e) => e.type).join(', ')}`,
            exchanges,
          );
        }
      },
    },
    {
      id: 'partner.lifecycle.order.partner-refund',
      rules: [
        'spec:partner:refundOrder#/description',
        'seed:partner › States and transitions',
        'seed:partner › Endpoints › Settlement and reporting',
      ],
      name: 'POST /refunds refunds a partner-collected order before TRANSFER_COMPLETED (order.refunded once); from TRANSFER_COMPLETED on, after a refund or cancel, or for a hosted-checkout order it is 409 invalid_state',
      async run(ctx) {
        const who = await mainPartner(ctx);
        const refund = partnerOp(ctx, 'refundOrder');
        const send = (publicId: string, deliberate: boolean) =>
          ctx.http.signed({
            method: 'POST',
            target: refund.operation.path,
            credentials: who,
            body: JSON.stringify({ public_id: publicId, reason: 'conformance: refund' }),
            operation: refund.operation,
            rateClass: refund.rateClass,
            deliberate,
          });
        for (const status of ['EXTERNALLY_PAID', 'MANUAL_REVIEW', 'TRANSFER_IN_PROGRESS']) {
          const order = await orderIn(ctx, who, status, 'partner_collected');
          const before = await lastEventId(ctx, who);
          const e = await send(order.public_id, false);
          expectStatus(e, 200, `a partner refund of a partner-collected order in ${status}`);
          expect(
            (jsonOf(e) as { status?: unknown }).status === 'REFUNDED',
            `the refunded order answers status ${String((jsonOf(e) as { status?: unknown }).status)}, not REFUNDED`,
            [e],
          );
          const { events, exchanges } = await eventsOf(ctx, who, order.public_id, before);
          expectEventsOnce(
            events,
            ['order.refunded'],
            { ...order, status: 'REFUNDED' },
            `a partner refund from ${status}`,
            [e, ...exchanges],
          );
        }
        for (const [status, model] of [
          ['TRANSFER_COMPLETED', 'partner_collected'],
          ['SETTLED', 'partner_collected'],
          ['REFUNDED', 'partner_collected'],
          ['CANCELLED', 'partner_collected'],
          ['PAID', 'service_collected'],
        ] as const) {
          const order = await orderIn(ctx, who, status, model);
          const e = await send(order.public_id, true);
          expectCode(ctx, e, 'invalid_state', `a partner refund of a ${model} order in ${status}`);
          expect(
            String((jsonOf(e) as { message?: unknown }).message).includes(status),
            `the invalid_state message must name the current status ${status}`,
            [e],
          );
          expect(
            (jsonOf(await readOrder(ctx, who, order.public_id)) as AdminOrder).status === status,
            `the refused refund changed ${order.public_id} from ${status}`,
          );
        }
      },
    },
    {
      id: 'partner.lifecycle.settlement.reconciles',
      rules: [
        'spec:admin:runSettlement#/description',
        'spec:partner#/components/schemas/Statement',
        'spec:partner#/x-commission-defaults',
        'seed:partner › States and transitions',
      ],
      name: "a settlement run settles exactly the partner's delivered orders (order.settled once each) in one statement that reconciles to the cent with them, the same in GET /settlements and /transactions; the same period_end again writes nothing",
      async run(ctx) {
        const who = await partner(ctx);
        const delivered = [
          await orderIn(ctx, who, 'TRANSFER_COMPLETED', 'partner_collected'),
          await orderIn(ctx, who, 'TRANSFER_COMPLETED', 'partner_collected'),
          await orderIn(ctx, who, 'TRANSFER_COMPLETED', 'service_collected'),
        ];
        const untouched = [
          await orderIn(ctx, who, 'EXTERNALLY_PAID', 'partner_collected'),
          await orderIn(ctx, who, 'TRANSFER_IN_PROGRESS', 'partner_collected'),
        ];
        const before = await lastEventId(ctx, who);
        const periodEnd = new Date(Math.ceil((Date.now() + ctx.http.clockOffsetMs + 2000) / 1000) * 1000)
          .toISOString()
          .replace(/\.000Z$/, 'Z');
        const run = await settle(ctx, periodEnd);
        const mine = run.statements.filter((s) => s.partner_id === who.partnerId);
        expect(
          mine.length === 1,
          `the settlement run wrote ${mine.length} statements for the partner; one per partner per run`,
          [run.exchange],
        );
        const st = mine[0]!;
        const defaults = ctx.spec.extension<Record<string, number>>('partner', 'x-commission-defaults') ?? {};
        const pc = delivered.filter((o) => o.payment_model === 'partner_collected');
        const sc = delivered.filter((o) => o.payment_model === 'service_collected');
        const gross = pc.reduce((s, o) => s + o.sale_price_cents, 0);
        const retained = pc.reduce(
          (s, o) => s + commission(o.sale_price_cents, defaults['partner-collected-bps'] ?? 0),
          0,
        );
        const expected: Record<string, unknown> = {
          gross_sold_cents: gross,
          commission_retained_cents: retained,
          amount_owed_cents: gross - retained,
          service_collected_gross_cents: sc.reduce((s, o) => s + o.sale_price_cents, 0),
          commission_payable_cents: sc.reduce(
            (s, o) => s + commission(o.sale_price_cents, defaults['service-collected-bps'] ?? 0),
            0,
          ),
          order_count: delivered.length,
          currency: 'USD',
          period_end: periodEnd,
        };
        for (const [key, value] of Object.entries(expected))
          expect(
            st[key] === value,
            `statement ${String(st.statement_id)}: ${key} is ${JSON.stringify(st[key])}; the settled orders (${delivered.map((o) => `${o.public_id} ${o.sale_price_cents} ${o.payment_model}`).join(', ')}) at the default rates (x-commission-defaults) make ${JSON.stringify(value)}`,
            [run.exchange],
          );
        const listed = [...((st.orders as string[]) ?? [])].sort();
        expect(
          JSON.stringify(listed) === JSON.stringify(delivered.map((o) => o.public_id).sort()),
          `statement orders ${listed.join(', ')}; the orders delivered before period_end are ${delivered.map((o) => o.public_id).join(', ')}`,
          [run.exchange],
        );
        for (const o of delivered) {
          const { events, exchanges } = await eventsOf(ctx, who, o.public_id, before);
          expectEventsOnce(events, ['order.settled'], { ...o, status: 'SETTLED' }, `settling ${o.public_id}`, [
            run.exchange,
            ...exchanges,
          ]);
        }
        for (const o of untouched) {
          const now = jsonOf(await readOrder(ctx, who, o.public_id)) as AdminOrder;
          expect(
            now.status === o.status,
            `${o.public_id} was ${o.status}, not delivered, yet the settlement run moved it to ${now.status}`,
          );
        }
        const settlements = partnerOp(ctx, 'listSettlements');
        const page = await ctx.http.signed({
          target: `${settlements.operation.path}?limit=200`,
          credentials: who,
          operation: settlements.operation,
          rateClass: settlements.rateClass,
        });
        expectStatus(page, 200, 'GET /settlements');
        const statement = ((jsonOf(page) as { data?: Array<Record<string, unknown>> }).data ?? []).find(
          (s) => s.statement_id === st.statement_id,
        );
        expect(
          statement !== undefined,
          `GET /settlements does not list the statement ${String(st.statement_id)} the run wrote`,
          [page],
        );
        for (const key of Object.keys(expected))
          expect(
            statement[key] === st[key],
            `GET /settlements says ${key} ${JSON.stringify(statement[key])}, the run wrote ${JSON.stringify(st[key])}`,
            [page, run.exchange],
          );
        const transactions = partnerOp(ctx, 'listTransactions');
        const tx = await ctx.http.signed({
          target: `${transactions.operation.path}?limit=200`,
          credentials: who,
          operation: transactions.operation,
          rateClass: transactions.rateClass,
        });
        expectStatus(tx, 200, 'GET /transactions');
        const rows = (jsonOf(tx) as { data?: Array<Record<string, unknown>> }).data ?? [];
        for (const o of delivered) {
          const row = rows.find((r) => r.public_id === o.public_id);
          const bps =
            o.payment_model === 'partner_collected'
              ? defaults['partner-collected-bps']
              : defaults['service-collected-bps'];
          expect(
            row !== undefined &&
              row.statement_id === st.statement_id &&
              row.status === 'SETTLED' &&
              typeof row.settled_at === 'string' &&
              row.commission_cents === commission(o.sale_price_cents, bps ?? 0),
            `GET /transactions row of ${o.public_id}: ${JSON.stringify(row)}; it must be SETTLED with statement_id ${String(st.statement_id)}, a settled_at and commission_cents ${commission(o.sale_price_cents, bps ?? 0)}`,
            [tx],
          );
        }
        const again = await settle(ctx, periodEnd);
        expect(
          !again.statements.some((s) => s.partner_id === who.partnerId),
          'a second run with the same period_end wrote another statement for the partner; its period is already closed',
          [again.exchange],
        );
      },
    },
    {
      id: 'partner.lifecycle.brokerage.moves',
      rules: [
        'spec:admin:applyBrokerageAction#/x-transitions',
        'spec:partner#/components/schemas/BrokerageStatus/x-final-states',
        'seed:partner › States and transitions',
      ],
      name: 'every brokerage move x-transitions allows answers 200 with its status and event once (case_completed with data.case and final_price_cents); every other is 409 invalid_state; final_price_cents is required by close-deal only',
      async run(ctx) {
        const who = await mainPartner(ctx);
        const moves = transitions(ctx, 'applyBrokerageAction');
        for (const [action, t] of Object.entries(moves)) {
          for (const from of t.from) {
            const c = await caseIn(ctx, who, from, moves);
            const before = await lastEventId(ctx, who);
            const moved = await caseMove(ctx, c.case_id, action, bodyFor(t));
            const to = target(t, 'partner_collected');
            expect(
              moved.status === 200 && moved.body.status === to,
              `${action} of a case in ${from}: expected 200 with status ${to}, got ${moved.status} ${moved.body.status}`,
              [moved.exchange],
            );
            const { events, exchanges } = await eventsOf(ctx, who, c.case_id, before);
            expect(
              events.length === 1 && events[0]?.type === t.event,
              `${action} of case ${c.case_id} wrote ${events.map((e) => e.type).join(', ') || 'nothing'}; the contract writes ${t.event} once`,
              [moved.exchange, ...exchanges],
            );
            expect(
              events[0]?.data?.case?.status === to,
              `${t.event} of ${c.case_id} carries status ${String(events[0]?.data?.case?.status)}, not ${to}`,
              exchanges,
            );
            if (t.requires?.includes('final_price_cents')) {
              const data = events[0]?.data?.case ?? {};
              for (const key of ['case_id', 'domain', 'tier', 'status', 'final_price_cents', 'currency'])
                expect(data[key] !== undefined, `${t.event} carries no data.case.${key}`, exchanges);
              expect(
                data.final_price_cents === 654321,
                `${t.event} carries final_price_cents ${String(data.final_price_cents)}, the deal closed at 654321`,
                exchanges,
              );
            }
          }
        }
        for (const status of statusesOf(ctx, 'BrokerageStatus')) {
          const forbidden = Object.entries(moves).filter(([, t]) => !t.from.includes(status));
          if (forbidden.length === 0) continue;
          const c = await caseIn(ctx, who, status, moves);
          for (const [action, t] of forbidden) {
            const moved = await caseMove(ctx, c.case_id, action, bodyFor(t));
            expectCode(ctx, moved.exchange, 'invalid_state', `${action} of a case in ${status}`);
          }
        }
        const open = await caseIn(ctx, who, 'open', moves);
        const required = Object.entries(moves).find(([, t]) => t.requires?.includes('final_price_cents'));
        const other = Object.entries(moves).find(([, t]) => !t.requires?.length && t.from.includes('open'));
        if (required) {
          const ready = await caseIn(ctx, who, required[1].from[0]!, moves);
          expectCode(
            ctx,
            (await caseMove(ctx, ready.case_id, required[0], {})).exchange,
            'validation_error',
            `${required[0]} without final_price_cents`,
          );
        }
        if (other)
          expectCode(
            ctx,
            (await caseMove(ctx, open.case_id, other[0], { final_price_cents: 100 })).exchange,
            'validation_error',
            `${other[0]} with final_price_cents`,
          );
      },
    },
    {
      id: 'partner.lifecycle.expiry.test-clock',
      rules: [
        'spec:partner:createQuote#/x-quote-validity-seconds',
        'spec:partner:createCheckoutSession#/x-session-validity-seconds',
        'spec:admin#/info/description',
        'seed:partner › States and transitions',
      ],
      name: "quotes and checkout sessions expire on the partner's test clock: usable 1 s (a quote) or 60 s (a session) before their validity ends, quote_expired and 410 session_expired just after",
      async run(ctx) {
        const who = await partner(ctx, ['search', 'buy', 'embed']);
        const quoteValidity = ctx.spec.extension<number>('partner', 'x-quote-validity-seconds', 'createQuote');
        const sessionValidity = ctx.spec.extension<number>(
          'partner',
          'x-session-validity-seconds',
          'createCheckoutSession',
        );
        expect(
          typeof quoteValidity === 'number' && typeof sessionValidity === 'number',
          'the contract states no x-quote-validity-seconds or x-session-validity-seconds',
        );
        const advance = async (seconds: number) => {
          const res = await ctx.admin!.post(`/partners/${who.partnerId}/clock/advance`, { seconds });
          if (res.status !== 200)
            throw new CheckFailure(`advancing the test clock ${seconds} s answered ${res.status}`, [res.exchange]);
        };
        const quotes = partnerOp(ctx, 'createQuote');
        const quote = async (domain: string) => {
          const e = await ctx.http.signed({
            method: 'POST',
            target: quotes.operation.path,
            credentials: who,
            body: JSON.stringify({ domain }),
            operation: quotes.operation,
            rateClass: quotes.rateClass,
          });
          expectStatus(e, 200, `quoting ${domain}`);
          return jsonOf(e) as { quote_id: string; price_cents: number; currency: string };
        };
        const [early, late] = await listedDomains(ctx, who, 2);
        const q1 = await quote(early!.domain);
        await advance(quoteValidity - 1);
        expectStatus(
          await postOrder(ctx, {
            credentials: who,
            body: JSON.stringify(
              orderRequest(
                { domain: early!.domain, price: q1.price_cents, currency: q1.currency },
                { quote_id: q1.quote_id },
              ),
            ),
            key: randomUUID(),
          }),
          201,
          `an order with a quote ${quoteValidity - 1} s old (test clock)`,
        );
        const q2 = await quote(late!.domain);
        await advance(quoteValidity + 1);
        expectCode(
          ctx,
          await postOrder(ctx, {
            credentials: who,
            body: JSON.stringify(
              orderRequest(
                { domain: late!.domain, price: q2.price_cents, currency: q2.currency },
                { quote_id: q2.quote_id },
              ),
            ),
            key: randomUUID(),
            deliberate: true,
          }),
          'quote_expired',
          `an order with a quote ${quoteValidity + 1} s old (test clock)`,
        );
        const session = await openCheckout(ctx, who, await listedDomain(ctx, who));
        const page = () =>
          ctx.http.send({
            target: pagePath(ctx, session),
            headers: { accept: 'application/json' },
            operation: { method: 'GET', path: '/checkout' },
            rateClass: 'public',
            deliberate: true,
          });
        await advance(sessionValidity - 60);
        expectStatus(await page(), 200, `the checkout page of a session ${sessionValidity - 60} s old (test clock)`);
        await advance(120);
        expectCode(
          ctx,
          await page(),
          'session_expired',
          `the checkout page of a session ${sessionValidity + 60} s old (test clock)`,
          'public',
        );
      },
    },
    transactionTotalsCheck,
  ],
};
