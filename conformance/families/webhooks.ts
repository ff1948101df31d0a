// Webhook deliveries (seed "Events > Delivery", x-webhook-delivery): the suite runs a receiver,
// registers it, causes events (an order; with the operator API its transfer too) and checks
// every delivery: the signature is the lowercase hex HMAC-SHA256 of the raw body with the
// registered secret, the X-Service-* headers match the body, the body is what the contract's
// `webhooks` entry describes, and the same event is in GET /events. A 500 is retried with a
// higher attempt number; GET /events with after_id finds every delivered event, in order.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import { webhookSignature } from '../../client/protocol/index.ts';
import { CheckFailure, CheckSkipped, expect, onTeardown, type Context, type Family } from '../context.ts';
import { jsonOf, type Credentials, type Exchange } from '../http.ts';
import { patienceMs } from '../pacing.ts';
import { escapePointer, finalPointer } from './headers.ts';

type Json = Record<string, unknown>;

const EVENTS = { method: 'GET', path: '/api/partner/v1/events' };
const REGISTER = { method: 'PUT', path: '/api/partner/webhooks' };
const SEARCH = { method: 'GET', path: '/api/partner/v1/domains/search' };
const ORDERS = { method: 'POST', path: '/api/partner/v1/orders' };

/**
 * How long the first attempt of a delivery may take to arrive: the contract states no bound, so
 * the kit allows 30 s, plus 200 of the run's slow round trips (pacing.ts `patienceMs`): a busy
 * deployment or machine, whose every answer is slow, delivers late too.
 */
const deliveryWaitMs = (ctx: Context) => patienceMs(ctx, 30_000, 200);

/**
 * How long after a refused attempt the contract's first retry must have arrived: its nominal
 * delay (`retry-schedule-seconds`, about 10 s) times `retry-late-factor`, plus the receiver's
 * `timeout-seconds` for the attempt itself.
 */
function redeliveryDeadlineMs(ctx: Context): { ms: number; nominal: number } {
  const delivery = (ctx.spec.documents.partner['x-webhook-delivery'] ?? {}) as {
    'retry-schedule-seconds'?: number[];
    'retry-late-factor'?: number;
    'timeout-seconds'?: number;
  };
  const nominal = delivery['retry-schedule-seconds']?.[0];
  if (typeof nominal !== 'number')
    throw new CheckFailure('the contract states no x-webhook-delivery retry-schedule-seconds');
  const bound = (nominal * (delivery['retry-late-factor'] ?? 2) + (delivery['timeout-seconds'] ?? 5)) * 1000;
  // The contract's bound, plus the run's slow round trips: the retry is an exchange too.
  return { ms: patienceMs(ctx, bound, 50), nominal };
}

// ---------------------------------------------------------------------------------------------
// The suite's receiver

export interface Delivery {
  /** Arrival order, from 1. */
  n: number;
  at: number;
  method: string;
  path: string;
  headers: Record<string, string>;
  raw: Buffer;
  /** What the receiver answered. */
  answered: number;
}

export class Receiver {
  readonly deliveries: Delivery[] = [];
  /** While set, the first arrival of each event id is answered 500. */
  failFirstAttempt = false;
  /** Told the event type of every arrival. */
  onArrival?: (type: string) => void;
  private readonly seen = new Set<string>();
  private readonly waiting = new Set<() => void>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(listen: string | undefined, publicUrl: string | undefined): Promise<Receiver> {
    const [host, port] = splitHostPort(listen ?? '127.0.0.1:0');
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers))
          if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
        const id = headers['x-service-event-id'] ?? '';
        const fail = receiver.failFirstAttempt && !receiver.seen.has(id);
        receiver.seen.add(id);
        receiver.onArrival?.(headers['x-service-event-type'] ?? '');
        const answered = fail ? 500 : 200;
        receiver.deliveries.push({
          n: receiver.deliveries.length + 1,
          at: Date.now(),
          method: req.method ?? '',
          path: req.url ?? '',
          headers,
          raw,
          answered,
        });
        res.statusCode = answered;
        res.setHeader('content-type', 'application/json');
        res.end(fail ? '{"error":"conformance: first attempt refused on purpose"}' : '{"received":true}');
        for (const wake of receiver.waiting) wake();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, resolve);
    });
    server.unref();
    const address = server.address() as AddressInfo;
    const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    // The handler above runs only once the server listens, after this line.
    const receiver = new Receiver(server, publicUrl ?? `http://${shownHost}:${address.port}/conformance/webhooks`);
    return receiver;
  }

  /** Resolves with the first truthy result of `find`, re-evaluated on every arrival, or undefined after the timeout. */
  async waitFor<T>(find: () => T | undefined, timeoutMs: number): Promise<T | undefined> {
    const now = find();
    if (now) return now;
    return new Promise<T | undefined>((resolve) => {
      const done = (value: T | undefined) => {
        clearTimeout(timer);
        this.waiting.delete(wake);
        resolve(value);
      };
      const wake = () => {
        const value = find();
        if (value) done(value);
      };
      const timer = setTimeout(() => done(find()), timeoutMs);
      this.waiting.add(wake);
    });
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}

function splitHostPort(listen: string): [string, number] {
  const m = /^\[?([^\]]*?)\]?:(\d+)$/.exec(listen);
  if (!m) throw new CheckFailure(`--webhook-listen must be HOST:PORT, not "${listen}"`);
  return [m[1] || '127.0.0.1', Number(m[2])];
}

const bodyOf = (d: Delivery): Json | undefined => {
  try {
    const v = JSON.parse(d.raw.toString('utf8')) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
  } catch {
    return undefined;
  }
};

const orderIdOf = (event: Json | undefined) =>
  ((event?.data as Json | undefined)?.order as Json | undefined)?.public_id;

function describeDelivery(d: Delivery): string {
  const headers = Object.entries(d.headers)
    .filter(([k]) => !['host', 'connection', 'content-length'].includes(k))
    .map(([k, v]) => `  ${k}: ${v}`)
    .join('\n');
  const text = d.raw.toString('utf8');
  return `delivery #${d.n} (answered ${d.answered}):\n> ${d.method} ${d.path}\n${headers}\n\n  ${text.length > 800 ? `${text.slice(0, 800)}…` : text}`;
}

const failWith = (message: string, deliveries: Delivery[], exchanges: Exchange[] = []) =>
  new CheckFailure([message, ...deliveries.slice(0, 3).map(describeDelivery)].join('\n\n'), exchanges);

// ---------------------------------------------------------------------------------------------
// Run state shared by the family's checks

interface State {
  receiver: Receiver;
  credentials: Credentials & { partnerId?: string };
  secret: string;
  /** The last event id of the partner's history before the suite caused anything (null: none). */
  startCursor: string | null;
  /** Orders the family created, with the event types each should have delivered, in order. */
  orders: Map<string, string[]>;
}

const states = new WeakMap<Context, State>();

function stateOf(ctx: Context): State {
  const state = states.get(ctx);
  if (!state)
    throw new CheckFailure(
      'not run: it needs the receiver that partner.webhooks.register registers, and that check failed',
    );
  return state;
}

async function events(
  ctx: Context,
  credentials: Credentials,
  afterId: string | null,
  limit: number,
): Promise<{ exchange: Exchange; events: Json[]; next: string | null }> {
  const query = `limit=${limit}${afterId ? `&after_id=${encodeURIComponent(afterId)}` : ''}`;
  const exchange = await ctx.http.signed({
    target: `${EVENTS.path}?${query}`,
    credentials,
    operation: EVENTS,
    rateClass: 'reporting',
  });
  const body = jsonOf(exchange) as { events?: unknown; next_cursor?: unknown } | undefined;
  if (exchange.status !== 200 || !Array.isArray(body?.events))
    throw new CheckFailure(`GET /events answered ${exchange.status}`, [exchange]);
  return {
    exchange,
    events: body.events as Json[],
    next: typeof body.next_cursor === 'string' ? body.next_cursor : null,
  };
}

/** Every event after `afterId`, following next_cursor until an empty page. */
async function history(
  ctx: Context,
  credentials: Credentials,
  afterId: string | null,
  limit = 100,
): Promise<{ events: Json[]; end: string | null; exchanges: Exchange[] }> {
  const all: Json[] = [];
  const exchanges: Exchange[] = [];
  let after = afterId;
  for (let page = 0; page < 1000; page++) {
    const { exchange, events: batch, next } = await events(ctx, credentials, after, limit);
    exchanges.push(exchange);
    if (batch.length === 0) {
      expect(
        next === after,
        `an empty page of GET /events after ${after ?? '(start)'} should return next_cursor ${JSON.stringify(after)} (the after_id sent), got ${JSON.stringify(next)}`,
        [exchange],
      );
      return { events: all, end: after, exchanges };
    }
    const lastId = batch[batch.length - 1]?.id;
    expect(
      next === lastId,
      `GET /events next_cursor should be the id of the last event returned (${String(lastId)}), got ${JSON.stringify(next)}`,
      [exchange],
    );
    all.push(...batch);
    after = next;
  }
  throw new CheckFailure('GET /events did not reach an empty page within 1000 pages');
}

/** Records a partner-collected sale of some available domain; returns its public_id. */
async function placeOrder(ctx: Context, credentials: Credentials): Promise<string> {
  const candidates: Array<{ domain: string; price: number; currency: string }> = [];
  const tried: Exchange[] = [];
  for (const q of ['coffee', 'garden', 'cloud', 'studio', 'travel', 'market']) {
    const exchange = await ctx.http.signed({
      target: `${SEARCH.path}?q=${q}`,
      credentials,
      operation: SEARCH,
      rateClass: 'search',
    });
    const results = (jsonOf(exchange) as { results?: Array<Record<string, unknown>> } | undefined)?.results ?? [];
    for (const r of results) {
      if (
        r.available === true &&
        typeof r.domain === 'string' &&
        typeof r.price_cents === 'number' &&
        typeof r.currency === 'string'
      )
        candidates.push({ domain: r.domain, price: r.price_cents, currency: r.currency });
    }
    if (candidates.length >= 8) break;
  }
  // A random pick: other families of the run may be buying the first hits.
  candidates.sort(() => Math.random() - 0.5);
  for (const c of candidates.slice(0, 6)) {
    const exchange = await ctx.http.signed({
      method: 'POST',
      target: ORDERS.path,
      credentials,
      headers: { 'Idempotency-Key': randomUUID() },
      body: JSON.stringify({
        domain: c.domain,
        expected_price: c.price,
        currency: c.currency,
        buyer: { email: 'webhooks.conformance@example.org' },
        external_payment_ref: `conformance-${randomBytes(4).toString('hex')}`,
      }),
      operation: ORDERS,
      rateClass: 'write',
    });
    tried.push(exchange);
    const id = (jsonOf(exchange) as { public_id?: unknown } | undefined)?.public_id;
    if (exchange.status === 201 && typeof id === 'string') return id;
    if (exchange.status >= 500)
      throw new CheckFailure(`POST /orders for ${c.domain} answered ${exchange.status}`, [exchange]);
  }
  throw new CheckFailure(
    `could not record an order for any of ${candidates.length} available domains found by search`,
    tried.slice(-2),
  );
}

function deliveredKinds(ctx: Context): string[] {
  return (
    ((ctx.spec.documents.partner['x-webhook-delivery'] as Json | undefined)?.['delivered-kinds'] as
      string[] | undefined) ?? []
  );
}

/** What is wrong with one delivery, by the contract. */
function deliveryProblems(ctx: Context, state: State, d: Delivery): string[] {
  const problems: string[] = [];
  const h = d.headers;
  if (d.method !== 'POST') problems.push(`sent with ${d.method}, not POST`);
  const media = h['content-type']?.split(';')[0]?.trim().toLowerCase();
  if (media !== 'application/json')
    problems.push(`Content-Type ${h['content-type'] ?? '(none)'}, not application/json`);
  const signature = h['x-service-signature'];
  const expected = webhookSignature(state.secret, d.raw);
  if (signature === undefined) problems.push('no X-Service-Signature');
  else if (signature.startsWith('v1='))
    problems.push(`X-Service-Signature "${signature}" has a v1= prefix; webhook signatures are the bare lowercase hex`);
  else if (!/^[0-9a-f]{64}$/.test(signature))
    problems.push(`X-Service-Signature "${signature}" is not 64 lowercase hex digits`);
  else if (signature !== expected)
    problems.push(
      `X-Service-Signature ${signature} is not the HMAC-SHA256 of the raw body with the registered secret (expected ${expected})`,
    );
  const attempt = h['x-service-delivery-attempt'];
  if (attempt === undefined) problems.push('no X-Service-Delivery-Attempt');
  else if (!/^\d+$/.test(attempt) || Number(attempt) < 1 || Number(attempt) > 11)
    problems.push(`X-Service-Delivery-Attempt "${attempt}" is not an integer from 1 to 11`);
  const body = bodyOf(d);
  if (!body) {
    problems.push('the body is not a JSON object');
    return problems;
  }
  if (h['x-service-event-id'] !== body.id)
    problems.push(
      `X-Service-Event-Id "${h['x-service-event-id'] ?? '(none)'}" differs from the body's id "${String(body.id)}"`,
    );
  if (h['x-service-event-type'] !== body.type)
    problems.push(
      `X-Service-Event-Type "${h['x-service-event-type'] ?? '(none)'}" differs from the body's type "${String(body.type)}"`,
    );
  const type = String(body.type);
  const kinds = deliveredKinds(ctx);
  if (!kinds.includes(type)) {
    problems.push(
      `type "${type}" is delivered, but the contract delivers only ${kinds.join(', ')} (the other kinds are history only)`,
    );
  } else {
    const doc = ctx.spec.documents.partner;
    const pointer = `${finalPointer(doc, `/webhooks/${escapePointer(type)}/post/requestBody`)}/content/application~1json/schema`;
    const error = ctx.spec.validate('partner', pointer, body);
    if (error) problems.push(`the body does not match webhooks["${type}"]: ${error}`);
  }
  if (state.credentials.partnerId !== undefined && body.partner_id !== state.credentials.partnerId)
    problems.push(
      `partner_id "${String(body.partner_id)}" is not the registering partner's "${state.credentials.partnerId}"`,
    );
  return problems;
}

/** The deliveries of one order's events, by type. */
function deliveriesOf(state: State, publicId: string): Delivery[] {
  return state.receiver.deliveries.filter((d) => orderIdOf(bodyOf(d)) === publicId);
}

/** Compares a delivered event with its entry in the history; events never change. */
function sameEvent(delivered: Json, stored: Json): string | undefined {
  for (const key of ['id', 'type', 'created_at', 'data']) {
    if (!isDeepStrictEqual(delivered[key], stored[key]))
      return `${key}: delivered ${JSON.stringify(delivered[key])}, GET /events has ${JSON.stringify(stored[key])}`;
  }
  if (stored.partner_id !== undefined && stored.partner_id !== delivered.partner_id)
    return `partner_id: delivered ${JSON.stringify(delivered.partner_id)}, GET /events has ${JSON.stringify(stored.partner_id)}`;
  return undefined;
}

const DEACTIVATE = { method: 'DELETE', path: '/api/partner/webhooks' };

/**
 * With a partner credential it was given (no operator API), the kit registers its receiver on
 * the operator's own partner: it does so only when that partner has no endpoint, since the one
 * it would replace cannot be put back (its secret is never returned).
 */
async function refuseToReplace(ctx: Context, credentials: Credentials): Promise<void> {
  const exchange = await ctx.http.signed({
    target: REGISTER.path,
    credentials,
    operation: { method: 'GET', path: REGISTER.path },
    rateClass: 'reporting',
  });
  const body = jsonOf(exchange) as { url?: unknown; active?: unknown } | undefined;
  if (exchange.status === 200 && body?.active !== false)
    throw new CheckSkipped(
      `an operator token (--admin-token), so the kit registers its receiver on a partner of its own: this partner already has a webhook endpoint (${String(body?.url)}) that the kit would replace and could not put back (its secret is never returned)`,
    );
}

/**
 * The run's end: DELETE /api/partner/webhooks deactivates the registration, so no delivery stays
 * pending and no later event is queued for the closed receiver (which the deployment would
 * retry for about a day); then the receiver closes.
 */
async function unregister(ctx: Context, credentials: Credentials, receiver: Receiver): Promise<void> {
  try {
    const exchange = await ctx.http.signed({
      method: 'DELETE',
      target: DEACTIVATE.path,
      credentials,
      operation: DEACTIVATE,
      rateClass: 'write',
    });
    if (exchange.status !== 200)
      throw new Error(
        `DELETE ${DEACTIVATE.path} answered ${exchange.status}: the registration of ${receiver.url} stays active, and the deployment will retry deliveries to it`,
      );
    ctx.log(`  webhook registration of ${receiver.url} deactivated`);
  } finally {
    await receiver.close();
  }
}

export const webhooksFamily: Family = {
  name: 'webhooks',
  surface: 'partner',
  description:
    'Deliveries are signed (bare hex HMAC of the raw body), headers match the body, retried after a 500, and replayable through GET /events',
  needs: ['credentials', 'writes', 'webhook-receiver'],
  checks: [
    {
      id: 'partner.webhooks.register',
      rules: ['spec:partner:registerWebhook#/x-url-rules', 'seed:partner › Endpoints › Webhooks and events'],
      name: "register the suite's receiver with PUT /api/partner/webhooks",
      async run(ctx) {
        const credentials = ctx.admin ? await ctx.mint(['search', 'buy', 'webhook']) : await ctx.credentials();
        if (!ctx.admin) await refuseToReplace(ctx, credentials);
        const receiver = await Receiver.start(ctx.options.webhookListen, ctx.options.webhookPublicUrl);
        receiver.onArrival = (type) =>
          ctx.http.webhookDeliveries.set(type, (ctx.http.webhookDeliveries.get(type) ?? 0) + 1);
        try {
          const { end } = await history(ctx, credentials, null, 1000);
          const secret = `whsec_conformance_${randomBytes(12).toString('hex')}`;
          const exchange = await ctx.http.signed({
            method: 'PUT',
            target: REGISTER.path,
            credentials,
            body: JSON.stringify({ url: receiver.url, secret }),
            operation: REGISTER,
            rateClass: 'write',
          });
          // The receiver answers until the run ends; then the registration is deactivated.
          if (exchange.status === 200)
            onTeardown(ctx, 'the webhook registration', () => unregister(ctx, credentials, receiver));
          const body = jsonOf(exchange) as { url?: unknown; active?: unknown } | undefined;
          expect(exchange.status === 200, `registering ${receiver.url} should answer 200, got ${exchange.status}`, [
            exchange,
          ]);
          expect(
            body?.url === receiver.url,
            `the registration should echo the url ${receiver.url}, got ${JSON.stringify(body?.url)}`,
            [exchange],
          );
          expect(
            body?.active === true,
            `a PUT (re)activates the endpoint: active should be true, got ${JSON.stringify(body?.active)}`,
            [exchange],
          );
          expect(
            !exchange.responseBody.includes(secret),
            'the registration answer contains the secret; it is never returned',
            [exchange],
          );
          states.set(ctx, { receiver, credentials, secret, startCursor: end, orders: new Map() });
          ctx.log(`  receiver at ${receiver.url}${ctx.admin ? ' (a partner of its own)' : ''}`);
        } catch (err) {
          await receiver.close();
          throw err;
        }
      },
    },
    {
      id: 'partner.webhooks.delivery',
      rules: ['spec:partner#/x-webhook-delivery', 'spec:partner#/webhooks', 'seed:partner › Events › Delivery'],
      name: "an order's events are delivered signed, with X-Service-* headers that match a body the contract describes, and are in GET /events",
      async run(ctx) {
        const state = stateOf(ctx);
        const publicId = await placeOrder(ctx, state.credentials);
        const expected = ['order.recorded'];
        if (ctx.admin) {
          for (const [move, type] of [
            ['start-transfer', 'order.transfer_started'],
            ['confirm-delivery', 'order.transfer_completed'],
          ] as const) {
            const res = await ctx.admin.post(`/orders/${publicId}/${move}`);
            if (res.status !== 200)
              throw new CheckFailure(
                `the operator move ${move} of ${publicId} answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`,
              );
            expected.push(type);
          }
        } else {
          ctx.log('  without the operator API only order.recorded is caused');
        }
        state.orders.set(publicId, expected);
        const wait = deliveryWaitMs(ctx);
        const arrived = await state.receiver.waitFor(() => {
          const types = new Set(deliveriesOf(state, publicId).map((d) => String(bodyOf(d)?.type)));
          return expected.every((t) => types.has(t)) ? true : undefined;
        }, wait);
        const mine = deliveriesOf(state, publicId);
        if (!arrived) {
          const got = mine.map((d) => String(bodyOf(d)?.type));
          throw failWith(
            `within ${Math.round(wait / 1000)} s the receiver got ${got.length ? got.join(', ') : 'nothing'} for order ${publicId}; expected ${expected.join(', ')} (${state.receiver.deliveries.length} deliveries in all)`,
            state.receiver.deliveries.slice(-3),
          );
        }
        for (const d of state.receiver.deliveries) {
          const problems = deliveryProblems(ctx, state, d);
          if (problems.length > 0) throw failWith(`delivery #${d.n}: ${problems.join('; ')}`, [d]);
        }
        const { events: stored, exchanges } = await history(ctx, state.credentials, state.startCursor);
        const byId = new Map(stored.map((e) => [String(e.id), e]));
        for (const d of mine) {
          const body = bodyOf(d)!;
          const entry = byId.get(String(body.id));
          if (!entry)
            throw failWith(
              `delivered event ${String(body.id)} (${String(body.type)}) is not in GET /events after ${state.startCursor ?? '(start)'}`,
              [d],
              exchanges.slice(-1),
            );
          const difference = sameEvent(body, entry);
          if (difference)
            throw failWith(
              `delivered event ${String(body.id)} differs from GET /events: ${difference}`,
              [d],
              exchanges.slice(-1),
            );
        }
      },
    },
    {
      id: 'partner.webhooks.redelivery',
      rules: [
        'spec:partner#/x-webhook-delivery/retry-schedule-seconds',
        'spec:partner#/x-webhook-delivery/retry-late-factor',
        'seed:partner › Events › Delivery',
      ],
      name: 'a 500 answer is retried: the event arrives again, same id and body, with a higher X-Service-Delivery-Attempt',
      async run(ctx) {
        const state = stateOf(ctx);
        state.receiver.failFirstAttempt = true;
        try {
          const publicId = await placeOrder(ctx, state.credentials);
          state.orders.set(publicId, ['order.recorded']);
          const wait = deliveryWaitMs(ctx);
          const first = await state.receiver.waitFor(
            () => deliveriesOf(state, publicId).find((d) => d.answered === 500),
            wait,
          );
          if (!first)
            throw failWith(
              `order ${publicId} was recorded but no order.recorded delivery arrived within ${Math.round(wait / 1000)} s`,
              state.receiver.deliveries.slice(-2),
            );
          const eventId = bodyOf(first)?.id;
          const deadline = redeliveryDeadlineMs(ctx);
          const again = await state.receiver.waitFor(
            () => state.receiver.deliveries.find((d) => d.n > first.n && bodyOf(d)?.id === eventId),
            deadline.ms,
          );
          if (!again) {
            throw failWith(
              `no redelivery of ${String(eventId)} within ${deadline.ms / 1000} s after the receiver answered 500: the contract's first retry is due about ${deadline.nominal} s after a failed attempt (x-webhook-delivery retry-schedule-seconds, at most retry-late-factor times that)`,
              [first],
            );
          }
          const problems = deliveryProblems(ctx, state, again);
          if (problems.length > 0) throw failWith(`the redelivery: ${problems.join('; ')}`, [again, first]);
          const a = Number(first.headers['x-service-delivery-attempt']);
          const b = Number(again.headers['x-service-delivery-attempt']);
          if (!(b > a))
            throw failWith(
              `the redelivery's X-Service-Delivery-Attempt is ${b}, not higher than the refused attempt's ${a}`,
              [first, again],
            );
          if (!first.raw.equals(again.raw))
            throw failWith('the redelivered body differs from the first attempt; an event never changes', [
              first,
              again,
            ]);
          ctx.log(`  attempt ${a} refused, attempt ${b} arrived ${again.at - first.at} ms later`);
        } finally {
          state.receiver.failFirstAttempt = false;
        }
      },
    },
    {
      id: 'partner.webhooks.catch-up',
      rules: ['spec:partner:listEvents#/description', 'seed:partner › Events › Delivery'],
      name: 'catch-up: GET /events with after_id, page by page, returns every delivered event once, in order',
      async run(ctx) {
        const state = stateOf(ctx);
        try {
          // Small pages, so that after_id and next_cursor are followed many times.
          const { events: stored, exchanges } = await history(ctx, state.credentials, state.startCursor, 2);
          const ids = stored.map((e) => String(e.id));
          const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
          if (duplicate)
            throw new CheckFailure(
              `event ${duplicate} appears twice in one traversal of GET /events`,
              exchanges.slice(-2),
            );
          for (let i = 1; i < stored.length; i++) {
            if (Date.parse(String(stored[i]!.created_at)) < Date.parse(String(stored[i - 1]!.created_at))) {
              throw new CheckFailure(
                `GET /events is not in creation order: ${ids[i - 1]} (${String(stored[i - 1]!.created_at)}) comes before ${ids[i]} (${String(stored[i]!.created_at)})`,
                exchanges.slice(-2),
              );
            }
          }
          const delivered = [...new Set(state.receiver.deliveries.map((d) => String(bodyOf(d)?.id)))];
          const lost = delivered.filter((id) => !ids.includes(id));
          if (lost.length > 0)
            throw failWith(
              `delivered events missing from GET /events after ${state.startCursor ?? '(start)'}: ${lost.join(', ')}`,
              state.receiver.deliveries.filter((d) => lost.includes(String(bodyOf(d)?.id))),
              exchanges.slice(-1),
            );
          // Each order's events in the order they happened.
          for (const [publicId, types] of state.orders) {
            const seen = stored
              .filter((e) => orderIdOf(e) === publicId)
              .map((e) => String(e.type))
              .filter((t) => types.includes(t));
            expect(
              isDeepStrictEqual(seen, types),
              `the history of order ${publicId} lists ${seen.join(', ') || 'nothing'}; expected ${types.join(', ')} in that order`,
              exchanges.slice(-1),
            );
          }
          // Resuming from any delivered event continues right after it.
          const pick = delivered[Math.floor(Math.random() * delivered.length)];
          if (pick) {
            const { exchange, events: next } = await events(ctx, state.credentials, pick, 1);
            const expectedNext = ids[ids.indexOf(pick) + 1];
            expect(
              String(next[0]?.id ?? '') === String(expectedNext ?? ''),
              `GET /events?after_id=${pick} should start with ${expectedNext ?? 'nothing (it is the last event)'}, got ${String(next[0]?.id ?? 'nothing')}`,
              [exchange],
            );
          }
          ctx.log(`  ${stored.length} events in the history, ${delivered.length} delivered, ${exchanges.length} pages`);
        } finally {
          // The receiver stays open until the run ends (events later families cause are delivered to it).
          states.delete(ctx);
        }
      },
    },
  ],
};
