// Pagination of partner lists (the partner document's "Lists" paragraph): cursor walks over GET /orders cover the set exactly
// once, honour `limit` and end with `next_cursor: null`, with and without filters; cursors are
// bound to their filters and tamper-proof (400 invalid_cursor); `limit` outside its range is
// 400 validation_error; GET /events pages by `after_id` in creation order and never loses its
// place. `walkCursor` is the reusable walker (the public listings family uses it too).
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import {
  CheckFailure,
  CheckSkipped,
  expect,
  expectError,
  expectStatus,
  property,
  type Context,
  type Family,
} from '../context.ts';
import { jsonOf, type Credentials, type Exchange } from '../http.ts';
import {
  eventsAfter,
  listedDomains,
  partnerOp,
  recordOrder,
  unlistedDomain,
  type EventJson,
  type OrderJson,
} from './orders-support.ts';

// ---------------------------------------------------------------------------------------------
// The walker, for any cursor-paginated list (partner `next_cursor`, public `page.next_cursor`).

export interface CursorPage<T> {
  exchange: Exchange;
  items: T[];
  /** The cursor for the next page; null on the last page. */
  nextCursor: string | null;
}

export interface WalkOptions<T> {
  /** Fetches one page (`cursor` undefined for the first); checks the status and parses the body. */
  fetchPage: (cursor: string | undefined, limit: number, pageIndex: number) => Promise<CursorPage<T>>;
  /** Page sizes, used in turn (a cursor may be followed with another `limit`). */
  limits: readonly number[];
  /** Identity of an item, to catch an item served twice. */
  idOf: (item: T) => string;
  /** A walk longer than this fails (the list never ends). */
  maxPages: number;
  /** What the walk is, for failure messages. */
  why: string;
}

/**
 * Follows `next_cursor` from the first page to the one whose cursor is null. Fails when a page
 * holds more items than its `limit`, when an item comes twice, when a cursor repeats (no
 * progress), when a page is empty yet not the last, or when the walk exceeds `maxPages`.
 */
export async function walkCursor<T>(options: WalkOptions<T>): Promise<{ items: T[]; exchanges: Exchange[] }> {
  const items: T[] = [];
  const exchanges: Exchange[] = [];
  const seen = new Map<string, number>();
  const cursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < options.maxPages; page++) {
    const limit = options.limits[page % options.limits.length] ?? 1;
    const result = await options.fetchPage(cursor, limit, page);
    exchanges.push(result.exchange);
    if (result.items.length > limit)
      throw new CheckFailure(
        `${options.why}: page ${page + 1} holds ${result.items.length} items with limit=${limit}`,
        [result.exchange],
      );
    for (const item of result.items) {
      const id = options.idOf(item);
      const earlier = seen.get(id);
      if (earlier !== undefined)
        throw new CheckFailure(
          `${options.why}: ${id} served twice (pages ${earlier + 1} and ${page + 1})`,
          exchanges.slice(-2),
        );
      seen.set(id, page);
      items.push(item);
    }
    if (result.nextCursor === null) return { items, exchanges };
    if (result.items.length === 0)
      throw new CheckFailure(`${options.why}: page ${page + 1} is empty but its next_cursor is not null`, [
        result.exchange,
      ]);
    if (cursors.has(result.nextCursor))
      throw new CheckFailure(
        `${options.why}: page ${page + 1} answers a cursor already served (the walk does not progress)`,
        exchanges.slice(-2),
      );
    cursors.add(result.nextCursor);
    cursor = result.nextCursor;
  }
  throw new CheckFailure(
    `${options.why}: next_cursor still not null after ${options.maxPages} pages`,
    exchanges.slice(-2),
  );
}

// ---------------------------------------------------------------------------------------------
// GET /orders

interface OrderFilters {
  status?: string | undefined;
  domain?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

function ordersQuery(filters: OrderFilters, extra: Record<string, string | undefined>, reversed = false): string {
  const parts = Object.entries({ ...filters, ...extra })
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([k, v]) => `${k}=${encodeURIComponent(v)}`);
  if (reversed) parts.reverse();
  return parts.join('&');
}

async function ordersPage(
  ctx: Context,
  credentials: Credentials,
  query: string,
  why: string,
): Promise<CursorPage<OrderJson>> {
  const list = partnerOp(ctx, 'listOrders');
  const exchange = await ctx.http.signed({
    target: `${list.operation.path}${query ? `?${query}` : ''}`,
    credentials,
    operation: list.operation,
    rateClass: list.rateClass,
  });
  expectStatus(exchange, 200, why);
  const body = jsonOf(exchange) as { data?: OrderJson[]; next_cursor?: unknown } | undefined;
  expect(
    Array.isArray(body?.data) && (body.next_cursor === null || typeof body.next_cursor === 'string'),
    `${why}: the answer is not { data: [...], next_cursor: string | null }`,
    [exchange],
  );
  return { exchange, items: body.data, nextCursor: body.next_cursor };
}

async function listOrdersRaw(
  ctx: Context,
  credentials: Credentials,
  query: string,
  deliberate = true,
): Promise<Exchange> {
  const list = partnerOp(ctx, 'listOrders');
  return ctx.http.signed({
    target: `${list.operation.path}?${query}`,
    credentials,
    operation: list.operation,
    rateClass: list.rateClass,
    deliberate,
  });
}

function walkOrders(
  ctx: Context,
  credentials: Credentials,
  filters: OrderFilters,
  limits: readonly number[],
  maxPages: number,
  reorder = false,
) {
  return walkCursor<OrderJson>({
    fetchPage: (cursor, limit, page) =>
      ordersPage(
        ctx,
        credentials,
        ordersQuery(filters, { limit: String(limit), cursor }, reorder && page % 2 === 1),
        `GET /orders with ${JSON.stringify(filters)}, page ${page + 1}`,
      ),
    limits,
    idOf: (o) => o.public_id,
    maxPages,
    why: `cursor walk over GET /orders with filters ${JSON.stringify(filters)} and limits ${limits.join(',')}`,
  });
}

const time = (value: string) => Date.parse(value);

function matches(order: OrderJson, f: OrderFilters): boolean {
  return (
    (f.status === undefined || order.status === f.status) &&
    (f.domain === undefined || order.domain === f.domain) &&
    (f.from === undefined || time(order.created_at) >= time(f.from)) &&
    (f.to === undefined || time(order.created_at) < time(f.to))
  );
}

function sameSequence(got: OrderJson[], expected: OrderJson[]): string | undefined {
  const a = got.map((o) => o.public_id);
  const b = expected.map((o) => o.public_id);
  if (a.length === b.length && a.every((id, i) => id === b[i])) return undefined;
  const missing = b.filter((id) => !a.includes(id));
  const extra = a.filter((id) => !b.includes(id));
  return `got ${a.length} orders, expected ${b.length}${missing.length ? `; missing ${missing.join(', ')}` : ''}${extra.length ? `; not matching the filters ${extra.join(', ')}` : ''}${!missing.length && !extra.length ? `; in another order (got ${a.join(', ')}, expected ${b.join(', ')})` : ''}`;
}

// ---------------------------------------------------------------------------------------------
// The fixture: seven orders of one partner, spread in time and status.

interface Fixture {
  credentials: Credentials & { partnerId?: string };
  /** A partner of its own (minted): its lists hold exactly what the fixture created. */
  own: boolean;
  created: OrderJson[];
  /** GET /orders in one page (limit 200): the reference order for every walk, newest first. */
  all: OrderJson[];
  /** The whole event history (GET /events with limit 1000), or undefined when the credential cannot read it. */
  events: EventJson[] | undefined;
  /** The exchanges that read the reference lists, for failure reports. */
  listing: Exchange[];
  eventReads: Exchange[];
}

/**
 * The filters every walk of a shared credential (not minted for the run) keeps: from the first
 * fixture order on, so what a walk costs does not grow with the credential's history.
 */
function walkScope(f: Fixture): OrderFilters {
  if (f.own) return {};
  const first = [...f.created].sort((a, b) => time(a.created_at) - time(b.created_at))[0];
  return first ? { from: first.created_at } : {};
}

/** Properties over a list of a shared credential (not minted for the run) keep to a few runs: its rate limits are the deployment's defaults. */
const runs = (ctx: Context, f: Fixture, most: number) => (f.own ? Math.min(ctx.fc.numRuns, most) : 3);

function eventsOf(f: Fixture): EventJson[] {
  if (!f.events) throw new CheckSkipped('a credential with scope webhook (or --admin-token)');
  return f.events;
}

const fixtures = new WeakMap<Context, Promise<Fixture>>();
const ORDERS = 7;

function fixture(ctx: Context): Promise<Fixture> {
  let f = fixtures.get(ctx);
  if (!f) {
    f = buildFixture(ctx);
    fixtures.set(ctx, f);
  }
  return f;
}

async function buildFixture(ctx: Context): Promise<Fixture> {
  const own = ctx.admin !== undefined;
  const credentials = own ? await ctx.mint(['search', 'buy', 'webhook']) : await ctx.credentials();
  const listed = await listedDomains(ctx, credentials, ORDERS);
  const created: OrderJson[] = [];
  for (const [i, l] of listed.entries()) {
    if (own && i > 0 && credentials.partnerId) {
      // Six hours of the partner's test clock between orders: distinct times across days, for the date filters.
      const advanced = await ctx.admin!.post(`/partners/${credentials.partnerId}/clock/advance`, { seconds: 6 * 3600 });
      if (advanced.status !== 200)
        throw new CheckFailure(
          `advancing the test clock through the operator API failed: ${advanced.status} ${JSON.stringify(advanced.body).slice(0, 300)}`,
        );
    }
    created.push(
      (await recordOrder(ctx, credentials, l, `recording order ${i + 1} of ${ORDERS} for the pagination checks`)).order,
    );
  }
  const expectedStatus = new Map(created.map((o) => [o.public_id, 'EXTERNALLY_PAID']));
  if (ctx.admin) {
    for (const [order, actions, status] of [
      [created[1], ['start-transfer'], 'TRANSFER_IN_PROGRESS'],
      [created[4], ['start-transfer', 'confirm-delivery'], 'TRANSFER_COMPLETED'],
    ] as const) {
      for (const action of actions) {
        const moved = await ctx.admin.post(`/orders/${order!.public_id}/${action}`, {});
        if (moved.status !== 200)
          throw new CheckFailure(
            `operator action ${action} on ${order!.public_id} failed: ${moved.status} ${JSON.stringify(moved.body).slice(0, 300)}`,
          );
      }
      expectedStatus.set(order!.public_id, status);
    }
  }
  const refund = partnerOp(ctx, 'refundOrder');
  const refunded = await ctx.http.signed({
    method: 'POST',
    target: refund.operation.path,
    credentials,
    body: JSON.stringify({ public_id: created[2]!.public_id, reason: 'conformance: pagination fixture' }),
    operation: refund.operation,
    rateClass: refund.rateClass,
  });
  expectStatus(refunded, 200, 'refunding one fixture order (POST /refunds)');
  expectedStatus.set(created[2]!.public_id, 'REFUNDED');

  // The reference listing: one page when the partner is our own, else the walk with limit 200.
  let all: OrderJson[];
  let listing: Exchange[];
  if (own) {
    const page = await ordersPage(
      ctx,
      credentials,
      'limit=200',
      'GET /orders?limit=200 (the whole list of the fixture partner)',
    );
    expect(page.nextCursor === null, 'GET /orders?limit=200 over 7 orders must be the last page (next_cursor null)', [
      page.exchange,
    ]);
    all = page.items;
    listing = [page.exchange];
  } else {
    const walk = await walkOrders(ctx, credentials, {}, [200], 1000);
    all = walk.items;
    listing = walk.exchanges.slice(-2);
  }
  const last = [];
  for (const o of created) {
    const listedOrder = all.find((a) => a.public_id === o.public_id);
    if (!listedOrder)
      throw new CheckFailure(`GET /orders does not list the order ${o.public_id} just created`, listing);
    if (listedOrder.status !== expectedStatus.get(o.public_id))
      throw new CheckFailure(
        `GET /orders lists ${o.public_id} as ${listedOrder.status}; after the moves made it must be ${expectedStatus.get(o.public_id)}`,
        listing,
      );
    last.push(listedOrder);
  }
  if (own && all.length !== created.length)
    throw new CheckFailure(`GET /orders of a new partner with ${created.length} orders lists ${all.length}`, listing);
  for (let i = 1; i < all.length; i++) {
    if (time(all[i - 1]!.created_at) < time(all[i]!.created_at))
      throw new CheckFailure(
        `GET /orders is not newest first: ${all[i - 1]!.public_id} (${all[i - 1]!.created_at}) comes before ${all[i]!.public_id} (${all[i]!.created_at})`,
        listing,
      );
  }
  let events: EventJson[] | undefined;
  let eventReads: Exchange[] = [];
  try {
    const read = await eventsAfter(ctx, credentials);
    events = read.events;
    eventReads = read.exchanges.slice(-2);
  } catch (err) {
    if (!(err instanceof CheckSkipped)) throw err;
  }
  return { credentials, own, created: last, all, events, listing, eventReads };
}

/** Filter values drawn from the fixture: its statuses, domains and creation times (both forms). */
function filtersArbitrary(f: Fixture): fc.Arbitrary<OrderFilters> {
  const statuses = [...new Set(f.all.map((o) => o.status)), 'SETTLED', 'CANCELLED'];
  const domains = [...f.created.map((o) => o.domain), unlistedDomain()];
  const times = [
    ...new Set(
      f.created.flatMap((o) => [
        o.created_at,
        o.created_at.slice(0, 10),
        new Date(time(o.created_at) + 1).toISOString(),
      ]),
    ),
  ];
  const sometimes = <T>(arb: fc.Arbitrary<T>, weight: number) =>
    fc.oneof({ weight: 4 - weight, arbitrary: fc.constant(undefined) }, { weight, arbitrary: arb });
  return fc
    .record({
      status: sometimes(fc.constantFrom(...statuses), 2),
      domain: sometimes(fc.constantFrom(...domains), 1),
      from: sometimes(fc.constantFrom(...times), 2),
      to: sometimes(fc.constantFrom(...times), 2),
    })
    .filter((x) => {
      // The window the walk sends: a shared credential's walk starts at its scope's `from`. A `to`
      // not later than `from` is refused (the To parameter), so only real windows are drawn.
      const from = x.from ?? walkScope(f).from;
      return from === undefined || x.to === undefined || time(from) < time(x.to);
    });
}

const limitsArbitrary = fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 3 });

// ---------------------------------------------------------------------------------------------

export const paginationFamily: Family = {
  name: 'pagination',
  surface: 'partner',
  description:
    'Cursor walks over GET /orders (with filters), cursors bound to filters, limit ranges, GET /events after_id paging',
  needs: ['credentials', 'writes'],
  checks: [
    {
      id: 'partner.lists.orders.walk',
      rules: ['spec:partner#/components/parameters/Cursor', 'spec:partner:listOrders#/responses/200'],
      name: 'a cursor walk over GET /orders covers every order exactly once, newest first, respects limit and ends with next_cursor null',
      async run(ctx) {
        const f = await fixture(ctx);
        // A credential given on the command line has a history of its own: its walks start at the fixture.
        const scope = walkScope(f);
        const expected = f.all.filter((o) => matches(o, scope));
        await property(
          ctx,
          fc.tuple(limitsArbitrary, fc.boolean()),
          async ([limits, reorder]) => {
            const { items, exchanges } = await walkOrders(
              ctx,
              f.credentials,
              scope,
              limits,
              expected.length + 2,
              reorder,
            );
            const wrong = sameSequence(items, expected);
            if (wrong)
              throw new CheckFailure(
                `cursor walk over GET /orders with limits ${limits.join(',')}: ${wrong}`,
                exchanges.slice(-2),
              );
          },
          runs(ctx, f, 25),
          { credentials: f.credentials, cost: { reporting: 4 } },
        );
      },
    },
    {
      id: 'partner.lists.orders.filters',
      rules: [
        'spec:partner#/components/parameters/From',
        'spec:partner#/components/parameters/To',
        'seed:partner › Endpoints › Partner-collected sales',
      ],
      name: 'the walk with filters (status, domain, from inclusive, to exclusive) covers exactly the matching orders',
      async run(ctx) {
        const f = await fixture(ctx);
        await property(
          ctx,
          fc.tuple(filtersArbitrary(f), limitsArbitrary),
          async ([drawn, limits]) => {
            const filters = { ...drawn, from: drawn.from ?? walkScope(f).from };
            const expected = f.all.filter((o) => matches(o, filters));
            const { items, exchanges } = await walkOrders(ctx, f.credentials, filters, limits, expected.length + 2);
            const wrong = sameSequence(items, expected);
            if (wrong)
              throw new CheckFailure(
                `cursor walk over GET /orders?${ordersQuery(filters, {})} with limits ${limits.join(',')}: ${wrong}`,
                exchanges.slice(-2),
              );
          },
          runs(ctx, f, 25),
          { credentials: f.credentials, cost: { reporting: 3 } },
        );
      },
    },
    {
      id: 'partner.lists.cursor.bound-to-filters',
      rules: ['spec:partner#/components/parameters/Cursor'],
      name: 'a cursor reused with other filters gives 400 invalid_cursor (another limit is fine)',
      async run(ctx) {
        const f = await fixture(ctx);
        const first = await ordersPage(ctx, f.credentials, 'limit=2', 'GET /orders?limit=2');
        expect(first.nextCursor !== null, 'GET /orders?limit=2 over at least 7 orders must answer a next_cursor', [
          first.exchange,
        ]);
        const cursor = encodeURIComponent(first.nextCursor);
        const [a, b] = f.created;
        const other: Array<[string, string]> = [
          ['status added', `status=EXTERNALLY_PAID&limit=2&cursor=${cursor}`],
          ['domain added', `domain=${a!.domain}&limit=2&cursor=${cursor}`],
          ['from added', `from=${encodeURIComponent(a!.created_at)}&limit=2&cursor=${cursor}`],
          ['to added', `to=${encodeURIComponent(b!.created_at)}&limit=2&cursor=${cursor}`],
        ];
        for (const [what, query] of other)
          expectError(
            await listOrdersRaw(ctx, f.credentials, query),
            400,
            'invalid_cursor',
            `a cursor of the unfiltered list reused with ${what}`,
          );
        expectStatus(
          await listOrdersRaw(ctx, f.credentials, `limit=3&cursor=${cursor}`, false),
          200,
          'the cursor reused with the same (no) filters and another limit',
        );

        const filtered = await ordersPage(
          ctx,
          f.credentials,
          'status=EXTERNALLY_PAID&limit=1',
          'GET /orders?status=EXTERNALLY_PAID&limit=1',
        );
        expect(
          filtered.nextCursor !== null,
          'GET /orders?status=EXTERNALLY_PAID&limit=1 over several such orders must answer a next_cursor',
          [filtered.exchange],
        );
        const fc2 = encodeURIComponent(filtered.nextCursor);
        expectError(
          await listOrdersRaw(ctx, f.credentials, `limit=1&cursor=${fc2}`),
          400,
          'invalid_cursor',
          'a cursor of status=EXTERNALLY_PAID reused without the filter',
        );
        expectError(
          await listOrdersRaw(ctx, f.credentials, `status=REFUNDED&limit=1&cursor=${fc2}`),
          400,
          'invalid_cursor',
          'a cursor of status=EXTERNALLY_PAID reused with status=REFUNDED',
        );
        expectStatus(
          await listOrdersRaw(ctx, f.credentials, `limit=1&status=EXTERNALLY_PAID&cursor=${fc2}`, false),
          200,
          'the filtered cursor reused with the same filter in another parameter order',
        );
      },
    },
    {
      id: 'partner.lists.cursor.tamper-proof',
      rules: ['spec:partner#/components/parameters/Cursor'],
      name: 'a tampered, truncated or made-up cursor gives 400 invalid_cursor',
      async run(ctx) {
        const f = await fixture(ctx);
        const first = await ordersPage(ctx, f.credentials, 'limit=2', 'GET /orders?limit=2');
        const cursor = first.nextCursor;
        expect(cursor !== null, 'GET /orders?limit=2 over at least 7 orders must answer a next_cursor', [
          first.exchange,
        ]);
        // Positions whose character is not the last of its `.`-separated segment: changing the last
        // base64 character may leave the decoded bytes unchanged, which would prove nothing.
        const positions = [...cursor]
          .map((_, i) => i)
          .filter((i) => i + 1 < cursor.length && cursor[i + 1] !== '.' && cursor[i] !== '.');
        const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
        const tampered = fc.oneof(
          fc
            .tuple(fc.constantFrom(...positions), fc.constantFrom(...alphabet))
            .filter(([i, c]) => cursor[i] !== c)
            .map(([i, c]) => `${cursor.slice(0, i)}${c}${cursor.slice(i + 1)}`),
          fc.integer({ min: 1, max: cursor.length - 1 }).map((n) => cursor.slice(0, cursor.length - n)),
          fc.constantFrom(...alphabet).map((c) => `${cursor}${c}`),
          fc.constantFrom(
            'abc',
            '0',
            'eyJrIjpbXX0.AAAA',
            randomUUID(),
            `${cursor.split('.')[0] ?? cursor}.${'A'.repeat(20)}`,
          ),
        );
        await property(
          ctx,
          tampered,
          async (bad) => {
            expectError(
              await listOrdersRaw(ctx, f.credentials, `limit=2&cursor=${encodeURIComponent(bad)}`),
              400,
              'invalid_cursor',
              `GET /orders with the cursor ${JSON.stringify(bad)} (the real one was ${JSON.stringify(cursor)})`,
            );
          },
          runs(ctx, f, 25),
          { credentials: f.credentials, cost: { reporting: 1 } },
        );
      },
    },
    {
      id: 'partner.lists.limit.range',
      rules: ['spec:partner#/components/parameters/Limit', 'spec:partner:listEvents#/parameters'],
      name: '`limit` outside 1..200 on GET /orders and outside 1..1000 on GET /events gives 400 validation_error',
      async run(ctx) {
        const f = await fixture(ctx);
        const events = partnerOp(ctx, 'listEvents');
        const outside = (max: number) =>
          fc.oneof(
            fc.integer({ min: -1_000_000, max: 0 }).map(String),
            fc.integer({ min: max + 1, max: 1_000_000_000 }).map(String),
            fc.constantFrom('abc', '2.5', 'ten', '1,2'),
          );
        await property(
          ctx,
          fc.tuple(outside(200), outside(1000)),
          async ([orders, ev]) => {
            expectError(
              await listOrdersRaw(ctx, f.credentials, `limit=${encodeURIComponent(orders)}`),
              400,
              'validation_error',
              `GET /orders?limit=${orders}`,
            );
            if (!f.events) return;
            const e = await ctx.http.signed({
              target: `${events.operation.path}?limit=${encodeURIComponent(ev)}`,
              credentials: f.credentials,
              operation: events.operation,
              rateClass: events.rateClass,
              deliberate: true,
            });
            expectError(e, 400, 'validation_error', `GET /events?limit=${ev}`);
          },
          runs(ctx, f, 15),
          { credentials: f.credentials, cost: { reporting: 2 } },
        );
        for (const limit of [1, 200]) {
          const page = await ordersPage(ctx, f.credentials, `limit=${limit}`, `GET /orders?limit=${limit}`);
          expect(
            page.items.length === Math.min(limit, f.all.length),
            `GET /orders?limit=${limit} answers ${page.items.length} orders (of ${f.all.length})`,
            [page.exchange],
          );
        }
        for (const limit of f.events ? [1, 1000] : []) {
          const e = await ctx.http.signed({
            target: `${events.operation.path}?limit=${limit}`,
            credentials: f.credentials,
            operation: events.operation,
            rateClass: events.rateClass,
          });
          expectStatus(e, 200, `GET /events?limit=${limit}`);
          const n = (jsonOf(e) as { events?: unknown[] } | undefined)?.events?.length ?? -1;
          if (f.events)
            expect(
              n === Math.min(limit, f.events.length),
              `GET /events?limit=${limit} answers ${n} events (of ${f.events.length})`,
              [e],
            );
        }
      },
    },
    {
      id: 'partner.events.after-id',
      rules: ['spec:partner:listEvents#/description', 'seed:partner › Events › Delivery'],
      name: 'GET /events: after_id returns the strictly later events in creation order, limit honoured, next_cursor the last id (or the after_id on an empty page)',
      async run(ctx) {
        const f = await fixture(ctx);
        const list = partnerOp(ctx, 'listEvents');
        const all = eventsOf(f);
        expect(
          all.length >= ORDERS,
          `the event history holds ${all.length} events; the ${ORDERS} orders recorded alone wrote ${ORDERS} order.recorded events`,
          f.eventReads,
        );
        const ids = all.map((e) => e.id);
        expect(new Set(ids).size === ids.length, 'GET /events serves an event twice in one walk', f.eventReads);
        for (let i = 1; i < all.length; i++) {
          expect(
            time(all[i - 1]!.created_at) <= time(all[i]!.created_at),
            `GET /events is not in creation order: ${all[i - 1]!.id} (${all[i - 1]!.created_at}) before ${all[i]!.id} (${all[i]!.created_at})`,
            f.eventReads,
          );
        }
        for (const o of f.created) {
          const n = all.filter((e) => e.type === 'order.recorded' && e.data?.order?.public_id === o.public_id).length;
          expect(n === 1, `GET /events holds ${n} order.recorded events for ${o.public_id}, expected 1`, f.eventReads);
        }
        // Start anywhere among the last events (or before the first one when there are few).
        // Of a shared credential (its default quota), only the last few: a walk from further back costs a page per event.
        const back = f.own ? 21 : 6;
        const start = fc.integer({ min: Math.max(-1, all.length - back), max: all.length - 1 });
        await property(
          ctx,
          fc.tuple(start, limitsArbitrary),
          async ([from, limits]) => {
            let after: string | undefined = from >= 0 ? all[from]!.id : undefined;
            let position = from + 1;
            for (let page = 0; page <= all.length + 1; page++) {
              const limit = limits[page % limits.length]!;
              const e = await ctx.http.signed({
                target: `${list.operation.path}?limit=${limit}${after ? `&after_id=${after}` : ''}`,
                credentials: f.credentials,
                operation: list.operation,
                rateClass: list.rateClass,
              });
              expectStatus(e, 200, `GET /events after ${after ?? '(start)'}`);
              const body = jsonOf(e) as { events?: EventJson[]; next_cursor?: string | null } | undefined;
              const got = body?.events;
              expect(Array.isArray(got), 'GET /events answered without an events array', [e]);
              expect(got.length <= limit, `GET /events?limit=${limit} answered ${got.length} events`, [e]);
              const want = ids.slice(position, position + got.length);
              const gotIds = got.map((x) => x.id);
              expect(
                gotIds.every((id, i) => id === want[i]),
                `GET /events after_id=${after ?? '(none)'} answered ${gotIds.join(', ')}; the events strictly after it, in creation order, are ${ids.slice(position, position + limit).join(', ') || '(none)'}`,
                [e],
              );
              if (got.length === 0) {
                expect(
                  position === all.length,
                  `GET /events after_id=${after ?? '(none)'} answered an empty page while ${all.length - position} later events exist`,
                  [e],
                );
                expect(
                  body?.next_cursor === (after ?? null),
                  `an empty GET /events page must answer next_cursor = the after_id sent (${after ?? 'null'}), got ${JSON.stringify(body?.next_cursor)}`,
                  [e],
                );
                return;
              }
              expect(
                body?.next_cursor === gotIds[gotIds.length - 1],
                `GET /events: next_cursor ${JSON.stringify(body?.next_cursor)} is not the id of the last event returned (${gotIds[gotIds.length - 1]})`,
                [e],
              );
              after = body!.next_cursor!;
              position += got.length;
            }
            throw new CheckFailure(`GET /events walk from ${from} did not reach an empty page`);
          },
          runs(ctx, f, 15),
          { credentials: f.credentials, cost: { reporting: 6 } },
        );
      },
    },
    {
      id: 'partner.events.cursor-edges',
      rules: ['spec:partner:listEvents#/description'],
      name: 'GET /events: next_cursor is null with neither events nor after_id; an unknown or foreign after_id gives 400 invalid_cursor',
      async run(ctx) {
        const f = await fixture(ctx);
        eventsOf(f);
        const list = partnerOp(ctx, 'listEvents');
        const get = (credentials: Credentials, query: string, deliberate = false) =>
          ctx.http.signed({
            target: `${list.operation.path}${query}`,
            credentials,
            operation: list.operation,
            rateClass: list.rateClass,
            deliberate,
          });
        expectError(
          await get(f.credentials, `?after_id=evt_${randomUUID().replace(/-/g, '')}`, true),
          400,
          'invalid_cursor',
          'GET /events with an after_id that is no event',
        );
        if (!ctx.admin) throw CheckSkipped.need('admin');
        const stranger = await ctx.mint(['webhook']);
        const empty = await get(stranger, '');
        expectStatus(empty, 200, 'GET /events of a partner without events');
        const body = jsonOf(empty) as { events?: unknown[]; next_cursor?: unknown } | undefined;
        expect(
          Array.isArray(body?.events) && body.events.length === 0 && body.next_cursor === null,
          `GET /events of a new partner must be { events: [], next_cursor: null }, got ${empty.responseBody.slice(0, 200)}`,
          [empty],
        );
        const foreign = eventsOf(f)[0]?.id;
        if (foreign)
          expectError(
            await get(stranger, `?after_id=${foreign}`, true),
            400,
            'invalid_cursor',
            "GET /events with another partner's event id as after_id",
          );
      },
    },
  ],
};
