// Authorization between principals (seed "Brokerage case": visible only to the partner that
// opened it; the contract's `not_found` for another partner's order or case, `x-scopes`, the
// affiliate requirement of the referral endpoints, live credentials that need approval, cursors
// and Idempotency-Keys scoped to what made them). Two partners of their own, A and B, each with
// every scope and an affiliate account: A's orders (partner-collected, paid through hosted
// checkout, settled), case, link and payout are 404 to B by id, absent from every one of B's
// lists and from its event history, and the other way round; A's cursors and after_ids mean
// nothing to B; A's Idempotency-Key is a fresh key for B.
import { randomUUID } from 'node:crypto';
import { CheckFailure, expect, expectStatus, oncePerRun, type Context, type Family } from '../context.ts';
import { jsonOf, type Credentials, type Exchange } from '../http.ts';
import type { SpecOperation } from '../spec.ts';
import { operatorMove, paidOrder, readOrder } from './checkout-support.ts';
import { expectCode } from './errors.ts';
import {
  concreteTarget,
  eventsAfter,
  listedDomains,
  orderRequest,
  partnerOp,
  partnerScopes,
  postOrder,
  recordOrder,
  unlistedDomain,
  type OrderJson,
} from './orders-support.ts';

type Partner = Credentials & { partnerId: string };

interface Principal {
  credentials: Partner;
  /** Partner-collected order (still EXTERNALLY_PAID), service-collected order (PAID), settled order. */
  orders: { recorded: string; paid: string; settled: string; extra: string };
  caseId: string;
  linkId: string | undefined;
  /** Every id of the partner's own rows its lists showed (the other partner must see none of them). */
  ids: Set<string>;
}

interface Fixture {
  a: Principal;
  b: Principal;
}

const FAST = { search: 100_000, write: 100_000, reporting: 100_000 };
const fixture = (ctx: Context): Promise<Fixture> => oncePerRun(ctx, 'authorization fixture', () => build(ctx));

async function principal(ctx: Context, credentials: Partner): Promise<Omit<Principal, 'ids'>> {
  const [one, two, three, four] = await listedDomains(ctx, credentials, 4);
  const recorded = (await recordOrder(ctx, credentials, one!, 'recording an order')).order.public_id;
  const extra = (await recordOrder(ctx, credentials, two!, 'recording a second order')).order.public_id;
  const settled = (await recordOrder(ctx, credentials, three!, 'recording an order to settle')).order.public_id;
  await operatorMove(ctx, settled, 'start-transfer');
  await operatorMove(ctx, settled, 'confirm-delivery');
  const paid = await paidOrder(ctx, credentials, four!);
  const brokerage = partnerOp(ctx, 'createBrokerageCase');
  const opened = await ctx.http.signed({
    method: 'POST',
    target: brokerage.operation.path,
    credentials,
    body: JSON.stringify({
      domain: unlistedDomain(),
      tier: 'self_serve',
      buyer_email: 'buyer.conformance@example.org',
      budget: 500000,
    }),
    operation: brokerage.operation,
    rateClass: brokerage.rateClass,
  });
  expectStatus(opened, 201, 'opening a brokerage case');
  const caseId = String((jsonOf(opened) as { case_id?: unknown }).case_id);
  const links = partnerOp(ctx, 'createLink');
  const link = await ctx.http.signed({
    method: 'POST',
    target: links.operation.path,
    credentials,
    body: JSON.stringify({ type: 'generic' }),
    operation: links.operation,
    rateClass: links.rateClass,
  });
  expectStatus(link, 201, 'creating a referral link (the partner has an affiliate account)');
  const payout = await ctx.admin!.post('/payouts', {
    partner_id: credentials.partnerId,
    amount_cents: 1234,
    kind: 'brokerage',
  });
  if (payout.status !== 201 && payout.status !== 200)
    throw new CheckFailure(`recording a payout through the operator API answered ${payout.status}`, [payout.exchange]);
  return {
    credentials,
    orders: { recorded, paid, settled, extra },
    caseId,
    linkId: (jsonOf(link) as { link_id?: string }).link_id,
  };
}

/** The partner GET operations that list rows (they page with `limit`), and the event history. */
function listOperations(ctx: Context): SpecOperation[] {
  return ctx.spec.operations.filter(
    (o) =>
      o.api === 'partner' && o.method === 'GET' && o.parameters.some((p) => p.name === 'limit' && p.in === 'query'),
  );
}

/** Every page of one list, largest pages the contract allows. */
async function readAll(ctx: Context, op: SpecOperation, credentials: Credentials): Promise<Exchange[]> {
  const limit = op.parameters.find((p) => p.name === 'limit');
  const max = Number((limit?.schema as { maximum?: unknown } | undefined)?.maximum ?? 100);
  const out: Exchange[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 50; page++) {
    const events = op.operationId === 'listEvents';
    const query: string = `limit=${max}${cursor ? `&${events ? 'after_id' : 'cursor'}=${encodeURIComponent(cursor)}` : ''}`;
    const e = await ctx.http.signed({
      target: `${op.path}?${query}`,
      credentials,
      operation: { method: op.method, path: op.path },
      rateClass: op.rateClass,
    });
    out.push(e);
    expectStatus(e, 200, `${op.method} ${op.path} as the partner that owns the rows`);
    const body = jsonOf(e) as { data?: unknown[]; events?: unknown[]; next_cursor?: string | null };
    const rows = body.data ?? body.events ?? [];
    cursor = body.next_cursor ?? null;
    if (cursor === null || rows.length === 0) return out;
  }
  throw new CheckFailure(`${op.path} did not end after 50 pages`, out.slice(-1));
}

/** Ids of the rows in list answers: every string under a member named `id` or ending in `_id`. */
function idsIn(exchanges: Exchange[]): Set<string> {
  const out = new Set<string>();
  const walk = (v: unknown, key: string) => {
    if (typeof v === 'string') {
      if ((key === 'id' || key.endsWith('_id')) && v.length >= 6 && key !== 'partner_id' && key !== 'request_id')
        out.add(v);
    } else if (Array.isArray(v)) v.forEach((x) => walk(x, key));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  for (const e of exchanges) {
    const body = jsonOf(e) as { data?: unknown; events?: unknown } | undefined;
    walk(body?.data ?? body?.events, '');
  }
  return out;
}

async function build(ctx: Context): Promise<Fixture> {
  const mint = () => ctx.admin!.mint({ scopes: partnerScopes(ctx), affiliate: true, rate_limits: FAST });
  const [credA, credB] = [await mint(), await mint()];
  const a = await principal(ctx, credA);
  const b = await principal(ctx, credB);
  // Statements for both (the run settles every partner's delivered orders, as the scheduled run does).
  const run = await ctx.admin!.post('/settlements/run', {});
  if (run.status !== 200) throw new CheckFailure(`the settlement run answered ${run.status}`, [run.exchange]);
  const ids = async (p: Omit<Principal, 'ids'>) => {
    const seen = new Set<string>();
    for (const op of listOperations(ctx)) for (const id of idsIn(await readAll(ctx, op, p.credentials))) seen.add(id);
    return seen;
  };
  return { a: { ...a, ids: await ids(a) }, b: { ...b, ids: await ids(b) } };
}

export const authorizationFamily: Family = {
  name: 'authorization',
  surface: 'partner',
  description:
    "Between principals: another partner's orders and cases are 404, lists and events show only the caller's rows, cursors and Idempotency-Keys stay with their credential; scopes, the affiliate link and live approval are enforced",
  needs: ['admin', 'writes'],
  checks: [
    {
      id: 'partner.authz.by-id.orders',
      rules: ['spec:partner:getOrder#/responses/404', 'spec:partner:refundOrder#/description', 'seed:partner › Errors'],
      name: "another partner's orders (partner-collected, hosted checkout, settled) are 404 not_found by id, to GET /orders/{id} and POST /refunds, and stay as they were",
      async run(ctx) {
        const { a, b } = await fixture(ctx);
        for (const [what, id] of Object.entries(a.orders)) {
          expectCode(
            ctx,
            await readOrder(ctx, b.credentials, id, true),
            'not_found',
            `partner B reads partner A's ${what} order ${id}`,
          );
          const own = await readOrder(ctx, a.credentials, id);
          expectStatus(own, 200, `partner A reads its own ${what} order ${id} (the control)`);
        }
        const refund = partnerOp(ctx, 'refundOrder');
        const e = await ctx.http.signed({
          method: 'POST',
          target: refund.operation.path,
          credentials: b.credentials,
          body: JSON.stringify({ public_id: a.orders.recorded, reason: 'conformance: not my order' }),
          operation: refund.operation,
          rateClass: refund.rateClass,
          deliberate: true,
        });
        expectCode(ctx, e, 'not_found', "partner B refunds partner A's order");
        const after = await readOrder(ctx, a.credentials, a.orders.recorded);
        expect(
          (jsonOf(after) as OrderJson).status === 'EXTERNALLY_PAID',
          `partner A's order ${a.orders.recorded} is ${(jsonOf(after) as OrderJson).status} after partner B's refused refund; it must still be EXTERNALLY_PAID`,
          [e, after],
        );
      },
    },
    {
      id: 'partner.authz.by-id.brokerage',
      rules: [
        'spec:partner:getBrokerageCase#/responses/404',
        'seed:partner › Resources and their fields › Brokerage case',
      ],
      name: "another partner's brokerage case is 404 not_found by id",
      async run(ctx) {
        const { a, b } = await fixture(ctx);
        const op = partnerOp(ctx, 'getBrokerageCase');
        const target = op.operation.path.replace('{case_id}', encodeURIComponent(a.caseId));
        expectCode(
          ctx,
          await ctx.http.signed({
            target,
            credentials: b.credentials,
            operation: op.operation,
            rateClass: op.rateClass,
            deliberate: true,
          }),
          'not_found',
          `partner B reads partner A's case ${a.caseId}`,
        );
        expectStatus(
          await ctx.http.signed({
            target,
            credentials: a.credentials,
            operation: op.operation,
            rateClass: op.rateClass,
          }),
          200,
          `partner A reads its own case ${a.caseId} (the control)`,
        );
      },
    },
    {
      id: 'partner.authz.lists.own-rows',
      rules: [
        'spec:partner#/info/description',
        'spec:partner:listEvents#/description',
        'seed:partner › Resources and their fields',
      ],
      name: "every list and the event history show only the caller's rows (none of the other partner's ids, in either direction)",
      async run(ctx) {
        const { a, b } = await fixture(ctx);
        const empty: string[] = [];
        for (const [me, other, label] of [
          [b, a, 'B'],
          [a, b, 'A'],
        ] as const) {
          for (const op of listOperations(ctx)) {
            const pages = await readAll(ctx, op, me.credentials);
            const leaked = [...other.ids].filter((id) => pages.some((p) => p.responseBody.includes(id)));
            if (leaked.length > 0)
              throw new CheckFailure(
                `partner ${label}'s ${op.method} ${op.path} shows the other partner's ${leaked.slice(0, 5).join(', ')}`,
                pages.slice(-1),
              );
            if (idsIn(pages).size === 0) empty.push(`${label} ${op.operationId}`);
          }
        }
        const mustHave = [
          'listOrders',
          'listEvents',
          'listBrokerageCases',
          'listLinks',
          'listSettlements',
          'listTransactions',
          'listPayouts',
        ];
        const missing = mustHave.filter((id) => empty.some((e) => e.endsWith(` ${id}`)));
        expect(
          missing.length === 0,
          `the partners' own lists ${missing.join(', ')} are empty though each partner made an order, a case, a link, a payout and a statement: the check would prove nothing there`,
        );
        ctx.log(
          `lists without rows of either partner (not populated by this family): ${[...new Set(empty.map((e) => e.split(' ')[1]))].filter((id) => !mustHave.includes(id!)).join(', ') || 'none'}`,
        );
      },
    },
    {
      id: 'partner.authz.cursor.per-partner',
      rules: ['spec:partner#/components/parameters/Cursor', 'spec:partner:listEvents#/description'],
      name: "a cursor or after_id of another partner is 400 invalid_cursor (it never pages through the other partner's rows)",
      async run(ctx) {
        const { a, b } = await fixture(ctx);
        const list = partnerOp(ctx, 'listOrders');
        const first = await ctx.http.signed({
          target: `${list.operation.path}?limit=1`,
          credentials: a.credentials,
          operation: list.operation,
          rateClass: list.rateClass,
        });
        expectStatus(first, 200, 'partner A lists its orders one by one');
        const cursor = (jsonOf(first) as { next_cursor?: string | null }).next_cursor;
        expect(
          typeof cursor === 'string',
          'partner A has several orders, so its first page of one must have a next_cursor',
          [first],
        );
        const stolen = await ctx.http.signed({
          target: `${list.operation.path}?limit=1&cursor=${encodeURIComponent(cursor)}`,
          credentials: b.credentials,
          operation: list.operation,
          rateClass: list.rateClass,
          deliberate: true,
        });
        expectCode(ctx, stolen, 'invalid_cursor', "partner B follows partner A's cursor");
        const events = await eventsAfter(ctx, a.credentials);
        const foreign = events.events[0]?.id;
        expect(foreign !== undefined, "partner A's event history is empty", events.exchanges.slice(-1));
        const op = partnerOp(ctx, 'listEvents');
        expectCode(
          ctx,
          await ctx.http.signed({
            target: `${op.operation.path}?after_id=${encodeURIComponent(foreign)}`,
            credentials: b.credentials,
            operation: op.operation,
            rateClass: op.rateClass,
            deliberate: true,
          }),
          'invalid_cursor',
          "partner B reads its events after partner A's event",
        );
      },
    },
    {
      id: 'partner.authz.idempotency.per-partner',
      rules: ['spec:partner:createOrder#/x-idempotency', 'spec:partner#/components/parameters/IdempotencyKey'],
      name: "an Idempotency-Key of another partner is a fresh key: never the other partner's stored answer, never a conflict",
      async run(ctx) {
        const { a, b } = await fixture(ctx);
        const [first, second, theirs] = await listedDomains(ctx, a.credentials, 3);
        // Key one: partner B sends partner A's very request (same key, same bytes).
        const key = randomUUID();
        const body = JSON.stringify(orderRequest(first!));
        const original = await postOrder(ctx, { credentials: a.credentials, body, key });
        expectStatus(original, 201, 'partner A records an order with a new key');
        const same = await postOrder(ctx, { credentials: b.credentials, body, key, deliberate: true });
        expect(
          same.responseHeaders['idempotent-replayed'] !== 'true' &&
            !same.responseBody.includes((jsonOf(original) as OrderJson).public_id),
          `partner B sending partner A's key and body got partner A's stored answer (${same.status}${same.responseHeaders['idempotent-replayed'] === 'true' ? ', Idempotent-Replayed: true' : ''})`,
          [original, same],
        );
        // Key two: partner B uses partner A's key for another order of its own.
        const key2 = randomUUID();
        expectStatus(
          await postOrder(ctx, { credentials: a.credentials, body: JSON.stringify(orderRequest(second!)), key: key2 }),
          201,
          'partner A records a second order with another new key',
        );
        const other = await postOrder(ctx, {
          credentials: b.credentials,
          body: JSON.stringify(orderRequest(theirs!)),
          key: key2,
        });
        expectStatus(
          other,
          201,
          "partner B records its own order under a key partner A used (not a 409 conflict: the key is B's first use)",
        );
        expect(
          other.responseHeaders['idempotent-replayed'] !== 'true',
          "partner B's first use of a key is marked Idempotent-Replayed",
          [other],
        );
      },
    },
    {
      id: 'partner.authz.scope.every-operation',
      rules: [
        'spec:partner#/x-scope-definitions',
        'seed:partner › Authentication › Scopes',
        'seed:partner › Endpoints',
      ],
      name: 'for every scope, a credential without it is refused 403 forbidden on every operation whose x-scopes name it (and the same request with it is not)',
      async run(ctx) {
        await everyScope(ctx);
      },
    },
    {
      id: 'partner.authz.scope.affiliate',
      rules: ['spec:partner#/x-scope-definitions/refer', 'seed:partner › What the service does'],
      name: 'the referral endpoints need an affiliate account besides scope refer: 403 forbidden saying so without one',
      async run(ctx) {
        const plain = await ctx.admin!.mint({ scopes: ['refer'], affiliate: false, rate_limits: FAST });
        const affiliated = await ctx.admin!.mint({ scopes: ['refer'], affiliate: true, rate_limits: FAST });
        for (const id of ['listLinks', 'createLink']) {
          const op = partnerOp(ctx, id);
          const send = (credentials: Credentials, deliberate: boolean) =>
            ctx.http.signed({
              method: op.operation.method,
              target: op.operation.path,
              credentials,
              operation: op.operation,
              rateClass: op.rateClass,
              deliberate,
              ...(op.operation.method === 'POST' ? { body: JSON.stringify({ type: 'generic' }) } : {}),
            });
          const refused = await send(plain, true);
          expectCode(
            ctx,
            refused,
            'forbidden',
            `${op.operation.method} ${op.operation.path} with scope refer but no affiliate account`,
          );
          expect(
            /affiliate/i.test(String((jsonOf(refused) as { message?: unknown }).message)),
            `the forbidden answer must say an affiliate account is needed, got "${String((jsonOf(refused) as { message?: unknown }).message)}"`,
            [refused],
          );
          const allowed = await send(affiliated, false);
          expect(
            allowed.status < 400,
            `${op.operation.method} ${op.operation.path} with scope refer and an affiliate account answered ${allowed.status} (the control)`,
            [allowed],
          );
        }
      },
    },
    {
      id: 'partner.authz.live.approval',
      rules: ['spec:admin:approveCredential#/description', 'seed:partner › What the service does'],
      name: 'a live credential is refused 403 forbidden until the operator approves it, then served',
      async run(ctx) {
        const live = await ctx.admin!.mint({
          scopes: ['search'],
          environment: 'live',
          approved: false,
          rate_limits: FAST,
        });
        expect(live.keyId.startsWith('pk_live_'), `a live credential's key id starts pk_live_, got ${live.keyId}`);
        const op = partnerOp(ctx, 'getAvailability');
        const probe = (deliberate: boolean) =>
          ctx.http.signed({
            target: `${op.operation.path}?domain=${unlistedDomain()}`,
            credentials: live,
            operation: op.operation,
            rateClass: op.rateClass,
            deliberate,
          });
        expectCode(ctx, await probe(true), 'forbidden', 'a live credential not yet approved');
        const approved = await ctx.admin!.post(`/credentials/${encodeURIComponent(live.keyId)}/approve`);
        if (approved.status !== 200)
          throw new CheckFailure(`approving ${live.keyId} answered ${approved.status}`, [approved.exchange]);
        expectStatus(await probe(false), 200, 'the same live credential once approved');
      },
    },
  ],
};

/** Per scope, a credential with every other scope (and an affiliate account), minted once. */
async function everyScope(ctx: Context): Promise<void> {
  const all = partnerScopes(ctx);
  const everything = await ctx.admin!.mint({ scopes: all, affiliate: true, rate_limits: FAST });
  const operations = ctx.spec.operations.filter((o) => o.api === 'partner');
  expect(operations.length > 0, 'the contract has no partner operations');
  for (const scope of all) {
    const lacking = await ctx.admin!.mint({
      scopes: all.filter((s) => s !== scope),
      affiliate: true,
      rate_limits: FAST,
    });
    const needing = operations.filter((o) => o.scopes.includes(scope));
    expect(
      needing.length > 0,
      `no operation of the contract needs scope ${scope} (x-scopes), yet x-scope-definitions defines it`,
    );
    for (const op of needing) {
      const headers: Record<string, string> =
        op.operationId === 'createOrder' ? { 'Idempotency-Key': randomUUID() } : {};
      const send = (credentials: Credentials) =>
        ctx.http.signed({
          method: op.method,
          target: concreteTarget(op),
          credentials,
          headers,
          operation: { method: op.method, path: op.path },
          rateClass: op.rateClass,
          deliberate: true,
          ...(op.method !== 'GET' ? { body: '{}' } : {}),
        });
      expectCode(
        ctx,
        await send(lacking),
        'forbidden',
        `${op.method} ${op.path} (${op.operationId}, x-scopes ${op.scopes.join(', ')}) with every scope but ${scope}`,
      );
      const control = await send(everything);
      if (control.status === 403)
        throw new CheckFailure(
          `${op.method} ${op.path}: a credential with every scope (and an affiliate account) is refused too, so the 403 above proves nothing`,
          [control],
        );
    }
  }
}
