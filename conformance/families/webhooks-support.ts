// What the webhooks family's checks share: the kit's receiver (it records every delivery and can
// refuse attempts on purpose), the run's registration state, the event history read through GET
// /events, an order placed to cause events, what the contract says of one delivery, and the
// registration's undoing at the end of the run.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import { webhookSignature } from '../../client/protocol/index.ts';
import { CheckFailure, CheckSkipped, expect, type Context } from '../context.ts';
import { jsonOf, type Credentials, type Exchange } from '../http.ts';
import { patienceMs } from '../pacing.ts';
import { escapePointer, finalPointer } from './headers.ts';

export type Json = Record<string, unknown>;

export const EVENTS = { method: 'GET', path: '/api/partner/v1/events' };
export const REGISTER = { method: 'PUT', path: '/api/partner/webhooks' };
export const SEARCH = { method: 'GET', path: '/api/partner/v1/domains/search' };
export const ORDERS = { method: 'POST', path: '/api/partner/v1/orders' };

/**
 * How long the first attempt of a delivery may take to arrive: the contract states no bound, so
 * the kit allows 30 s, plus 200 of the run's slow round trips (pacing.ts `patienceMs`): a busy
 * deployment or machine, whose every answer is slow, delivers late too.
 */
export const deliveryWaitMs = (ctx: Context) => patienceMs(ctx, 30_000, 200);

/**
 * How long after a refused attempt the contract's first retry must have arrived: its nominal
 * delay (`retry-schedule-seconds`, about 10 s) times `retry-late-factor`, plus the receiver's
 * `timeout-seconds` for the attempt itself.
 */
export function redeliveryDeadlineMs(ctx: Context): { ms: number; nominal: number } {
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
  /** While set, every arrival is answered with this status (a receiver that is failing). */
  refuseWith: number | undefined;
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
        const answered = receiver.refuseWith ?? (fail ? 500 : 200);
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
        res.end(answered !== 200 ? '{"error":"conformance: attempt refused on purpose"}' : '{"received":true}');
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

export function splitHostPort(listen: string): [string, number] {
  const m = /^\[?([^\]]*?)\]?:(\d+)$/.exec(listen);
  if (!m) throw new CheckFailure(`--webhook-listen must be HOST:PORT, not "${listen}"`);
  return [m[1] || '127.0.0.1', Number(m[2])];
}

export const bodyOf = (d: Delivery): Json | undefined => {
  try {
    const v = JSON.parse(d.raw.toString('utf8')) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
  } catch {
    return undefined;
  }
};

export const orderIdOf = (event: Json | undefined) =>
  ((event?.data as Json | undefined)?.order as Json | undefined)?.public_id;

export function describeDelivery(d: Delivery): string {
  const headers = Object.entries(d.headers)
    .filter(([k]) => !['host', 'connection', 'content-length'].includes(k))
    .map(([k, v]) => `  ${k}: ${v}`)
    .join('\n');
  const text = d.raw.toString('utf8');
  return `delivery #${d.n} (answered ${d.answered}):\n> ${d.method} ${d.path}\n${headers}\n\n  ${text.length > 800 ? `${text.slice(0, 800)}…` : text}`;
}

export const failWith = (message: string, deliveries: Delivery[], exchanges: Exchange[] = []) =>
  new CheckFailure([message, ...deliveries.slice(0, 3).map(describeDelivery)].join('\n\n'), exchanges);

// ---------------------------------------------------------------------------------------------
// Run state shared by the family's checks

export interface State {
  receiver: Receiver;
  credentials: Credentials & { partnerId?: string };
  secret: string;
  /** The last event id of the partner's history before the suite caused anything (null: none). */
  startCursor: string | null;
  /** Orders the family created, with the event types each should have delivered, in order. */
  orders: Map<string, string[]>;
}

export const states = new WeakMap<Context, State>();

export function stateOf(ctx: Context): State {
  const state = states.get(ctx);
  if (!state)
    throw new CheckFailure(
      'not run: it needs the receiver that partner.webhooks.register registers, and that check failed',
    );
  return state;
}

export async function events(
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
export async function history(
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
export async function placeOrder(ctx: Context, credentials: Credentials): Promise<string> {
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

export function deliveredKinds(ctx: Context): string[] {
  return (
    ((ctx.spec.documents.partner['x-webhook-delivery'] as Json | undefined)?.['delivered-kinds'] as
      string[] | undefined) ?? []
  );
}

/** What is wrong with one delivery, by the contract. */
export function deliveryProblems(ctx: Context, state: State, d: Delivery): string[] {
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
export function deliveriesOf(state: State, publicId: string): Delivery[] {
  return state.receiver.deliveries.filter((d) => orderIdOf(bodyOf(d)) === publicId);
}

/** Compares a delivered event with its entry in the history; events never change. */
export function sameEvent(delivered: Json, stored: Json): string | undefined {
  for (const key of ['id', 'type', 'created_at', 'data']) {
    if (!isDeepStrictEqual(delivered[key], stored[key]))
      return `${key}: delivered ${JSON.stringify(delivered[key])}, GET /events has ${JSON.stringify(stored[key])}`;
  }
  if (stored.partner_id !== undefined && stored.partner_id !== delivered.partner_id)
    return `partner_id: delivered ${JSON.stringify(delivered.partner_id)}, GET /events has ${JSON.stringify(stored.partner_id)}`;
  return undefined;
}

export const DEACTIVATE = { method: 'DELETE', path: '/api/partner/webhooks' };

/**
 * With a partner credential it was given (no operator API), the kit registers its receiver on
 * the operator's own partner: it does so only when that partner has no endpoint, since the one
 * it would replace cannot be put back (its secret is never returned).
 */
export async function refuseToReplace(ctx: Context, credentials: Credentials): Promise<void> {
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
export async function unregister(ctx: Context, credentials: Credentials, receiver: Receiver): Promise<void> {
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
