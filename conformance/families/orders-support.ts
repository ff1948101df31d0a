// What the order-writing families (idempotency, pagination, error-codes) share: finding a
// listed, unsold domain through the discovery operations, pricing it, recording orders and
// reading the partner's lists. Everything goes through the contract's operations (ids from
// generated/partner.openapi.json), never through the server's internals.
import { randomUUID } from 'node:crypto';
import { CheckFailure, CheckSkipped, expect, expectStatus, type Context } from '../context.ts';
import { jsonOf, type Credentials, type Exchange } from '../http.ts';

export const PARTNER_PREFIX = '/api/partner/v1';

/** Operation, rate class and scopes of a partner operation, read from the contract. */
export function partnerOp(
  ctx: Context,
  operationId: string,
): { operation: { method: string; path: string }; rateClass: string | undefined; scopes: string[] } {
  const op = ctx.spec.byId(operationId);
  return { operation: { method: op.method, path: op.path }, rateClass: op.rateClass, scopes: op.scopes };
}

/** Every scope some partner operation asks for (x-scopes). */
export function partnerScopes(ctx: Context): string[] {
  return [...new Set(ctx.spec.operations.filter((o) => o.api === 'partner').flatMap((o) => o.scopes))].sort();
}

export interface Listed {
  domain: string;
  price: number;
  currency: string;
}

export interface OrderJson {
  public_id: string;
  domain: string;
  status: string;
  sale_price_cents: number;
  currency: string;
  created_at: string;
}

export interface EventJson {
  id: string;
  type: string;
  created_at: string;
  data?: { order?: { public_id?: string; status?: string } };
}

// Words to search the sandbox inventory with; any listed inventory of some size matches several.
const WORDS = [
  'coffee',
  'shop',
  'tech',
  'cloud',
  'green',
  'home',
  'travel',
  'pet',
  'music',
  'food',
  'health',
  'design',
  'data',
  'studio',
  'market',
  'garden',
  'book',
  'sport',
  'games',
  'solar',
  'art',
  'fit',
  'bike',
  'photo',
  'kids',
  'law',
  'auto',
  'wine',
  'yoga',
  'craft',
  'labs',
  'hub',
  'store',
  'media',
  'smart',
  'eco',
  'city',
  'beauty',
  'pizza',
  'bank',
  'energy',
  'school',
  'fashion',
  'movie',
  'water',
  'farm',
  'style',
  'tea',
  'baby',
  'club',
];
/** Domains handed out during this run (never twice, whatever family asks). */
const handedOut = new Set<string>();
let wordCursor = Math.floor(Math.random() * WORDS.length);

/**
 * `count` listed, unsold, unreserved domains with their buy-now price: found with
 * GET /domains/search, priced with GET /pricing.
 */
export async function listedDomains(ctx: Context, credentials: Credentials, count: number): Promise<Listed[]> {
  const search = partnerOp(ctx, 'searchDomains');
  const pricing = partnerOp(ctx, 'getPricing');
  const found: Listed[] = [];
  for (let tried = 0; tried < WORDS.length && found.length < count; tried++) {
    const word = WORDS[wordCursor++ % WORDS.length] ?? 'shop';
    const exchange = await ctx.http.signed({
      target: `${search.operation.path}?q=${word}`,
      credentials,
      operation: search.operation,
      rateClass: search.rateClass,
    });
    expectStatus(exchange, 200, `searching the inventory for "${word}" to find a domain to order`);
    const results =
      (jsonOf(exchange) as { results?: Array<{ domain?: unknown; available?: unknown }> } | undefined)?.results ?? [];
    for (const hit of results) {
      if (found.length >= count) break;
      if (typeof hit.domain !== 'string' || hit.available !== true || handedOut.has(hit.domain)) continue;
      const priced = await ctx.http.signed({
        target: `${pricing.operation.path}?domain=${encodeURIComponent(hit.domain)}`,
        credentials,
        operation: pricing.operation,
        rateClass: pricing.rateClass,
      });
      if (priced.status !== 200) continue; // sold or withdrawn since the search
      const body = jsonOf(priced) as { price_cents?: unknown; currency?: unknown } | undefined;
      expect(
        typeof body?.price_cents === 'number' && typeof body.currency === 'string',
        `GET /pricing answered 200 without price_cents and currency for ${hit.domain}`,
        [priced],
      );
      handedOut.add(hit.domain);
      found.push({ domain: hit.domain, price: body.price_cents, currency: body.currency });
    }
  }
  if (found.length < count)
    throw new CheckFailure(
      `the inventory search (GET /domains/search over ${WORDS.length} words, then GET /pricing) found only ${found.length} of the ${count} listed, unsold domains this check orders`,
    );
  return found;
}

export async function listedDomain(ctx: Context, credentials: Credentials): Promise<Listed> {
  const [one] = await listedDomains(ctx, credentials, 1);
  if (!one) throw new CheckFailure('the inventory search found no listed, unsold domain');
  return one;
}

/** A domain name that is certainly not listed (valid syntax). */
export const unlistedDomain = () => `unlisted-${randomUUID().replace(/-/g, '').slice(0, 20)}.com`;

/** A valid order request body for a listed domain, at its listing price. */
export function orderRequest(listed: Listed, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    domain: listed.domain,
    expected_price: listed.price,
    currency: listed.currency,
    buyer: { email: 'conformance@example.com' },
    ...extra,
  };
}

export interface PostOrderOptions {
  credentials: Credentials;
  /** The raw body as sent (serialise it yourself to control the bytes). */
  body: string;
  /** Idempotency-Key; omitted when undefined. */
  key: string | undefined;
  deliberate?: boolean;
}

export async function postOrder(ctx: Context, options: PostOrderOptions): Promise<Exchange> {
  const create = partnerOp(ctx, 'createOrder');
  return ctx.http.signed({
    method: 'POST',
    target: create.operation.path,
    credentials: options.credentials,
    body: options.body,
    headers: options.key === undefined ? {} : { 'Idempotency-Key': options.key },
    operation: create.operation,
    rateClass: create.rateClass,
    deliberate: options.deliberate,
  });
}

/** Records an order for a listed domain and returns it (fails unless 201). */
export async function recordOrder(
  ctx: Context,
  credentials: Credentials,
  listed: Listed,
  why: string,
): Promise<{ order: OrderJson; exchange: Exchange }> {
  const exchange = await postOrder(ctx, { credentials, body: JSON.stringify(orderRequest(listed)), key: randomUUID() });
  expectStatus(exchange, 201, why);
  const order = jsonOf(exchange) as OrderJson;
  expect(typeof order?.public_id === 'string', `${why}: the 201 answer has no public_id`, [exchange]);
  return { order, exchange };
}

/** Every order of the caller for one domain (GET /orders?domain=…, all pages). */
export async function ordersOfDomain(
  ctx: Context,
  credentials: Credentials,
  domain: string,
): Promise<{ orders: OrderJson[]; exchanges: Exchange[] }> {
  const list = partnerOp(ctx, 'listOrders');
  const orders: OrderJson[] = [];
  const exchanges: Exchange[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 50; page++) {
    const target: string = `${list.operation.path}?domain=${encodeURIComponent(domain)}&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const exchange = await ctx.http.signed({
      target,
      credentials,
      operation: list.operation,
      rateClass: list.rateClass,
    });
    exchanges.push(exchange);
    expectStatus(exchange, 200, `listing the orders of ${domain}`);
    const body = jsonOf(exchange) as { data?: OrderJson[]; next_cursor?: string | null } | undefined;
    expect(Array.isArray(body?.data), 'GET /orders answered without a data array', [exchange]);
    orders.push(...body.data);
    cursor = body.next_cursor ?? null;
    if (cursor === null) return { orders, exchanges };
  }
  throw new CheckFailure(
    `GET /orders?domain=${domain} did not end (next_cursor still set after 50 pages)`,
    exchanges.slice(-2),
  );
}

/**
 * Every event of the caller after `afterId` (GET /events, all pages). Skips the check when the
 * credential cannot read events (no `webhook` scope on a credential given on the command line).
 */
export async function eventsAfter(
  ctx: Context,
  credentials: Credentials,
  afterId?: string,
): Promise<{ events: EventJson[]; last: string | null; exchanges: Exchange[] }> {
  const list = partnerOp(ctx, 'listEvents');
  const events: EventJson[] = [];
  const exchanges: Exchange[] = [];
  let after: string | null = afterId ?? null;
  for (let page = 0; page < 1000; page++) {
    const exchange = await ctx.http.signed({
      target: `${list.operation.path}?limit=1000${after ? `&after_id=${encodeURIComponent(after)}` : ''}`,
      credentials,
      operation: list.operation,
      rateClass: list.rateClass,
    });
    exchanges.push(exchange);
    if (exchange.status === 403)
      throw new CheckSkipped(
        `a credential with scope ${list.scopes.join(', ')} (or --admin-token): GET /events answered 403`,
      );
    expectStatus(exchange, 200, 'reading the event history');
    const body = jsonOf(exchange) as { events?: EventJson[]; next_cursor?: string | null } | undefined;
    expect(Array.isArray(body?.events), 'GET /events answered without an events array', [exchange]);
    if (body.events.length === 0) return { events, last: after, exchanges };
    events.push(...body.events);
    after = body.next_cursor ?? null;
    expect(
      after === body.events[body.events.length - 1]?.id,
      'GET /events: next_cursor is not the id of the last event returned',
      [exchange],
    );
  }
  throw new CheckFailure('GET /events did not reach an empty page after 1000 pages', exchanges.slice(-2));
}

/** A concrete request target for any operation: path parameters and required query parameters from the contract's examples. */
export function concreteTarget(op: { path: string; parameters: Array<Record<string, unknown>> }): string {
  const exampleOf = (p: Record<string, unknown>): string => {
    if (p.example !== undefined) return String(p.example);
    const schema = (p.schema ?? {}) as { examples?: unknown[]; default?: unknown };
    if (schema.examples?.[0] !== undefined) return String(schema.examples[0]);
    if (schema.default !== undefined) return String(schema.default);
    return 'example';
  };
  let path = op.path;
  const query: string[] = [];
  for (const p of op.parameters) {
    if (p.in === 'path') path = path.replace(`{${String(p.name)}}`, encodeURIComponent(exampleOf(p)));
    else if (p.in === 'query' && p.required === true)
      query.push(`${encodeURIComponent(String(p.name))}=${encodeURIComponent(exampleOf(p))}`);
  }
  return query.length ? `${path}?${query.join('&')}` : path;
}

/** POST /quotes of `domain` as `credentials`. */
export function quoteDomain(
  ctx: Context,
  credentials: Credentials,
  domain: string,
  deliberate: boolean,
): Promise<Exchange> {
  const quotes = partnerOp(ctx, 'createQuote');
  return ctx.http.signed({
    method: 'POST',
    target: quotes.operation.path,
    credentials,
    body: JSON.stringify({ domain }),
    operation: quotes.operation,
    rateClass: quotes.rateClass,
    deliberate,
  });
}

/** Moves the partner's test clock (its business time) forward. */
export async function advanceClock(ctx: Context, credentials: { partnerId: string }, seconds: number): Promise<void> {
  needAdmin(ctx);
  const advanced = await ctx.admin.post(`/partners/${credentials.partnerId}/clock/advance`, { seconds });
  if (advanced.status !== 200)
    throw new CheckFailure(
      `advancing the test clock ${seconds} s failed: ${advanced.status} ${JSON.stringify(advanced.body).slice(0, 300)}`,
    );
}

/** The operator's API, or the check is skipped saying it needs it. */
export function needAdmin(ctx: Context): asserts ctx is Context & { admin: NonNullable<Context['admin']> } {
  if (!ctx.admin) throw CheckSkipped.need('admin');
}
