// POST /orders idempotency as the contract fixes it (x-idempotency of createOrder):
// canonical-JSON fingerprints, byte-for-byte replays with Idempotent-Replayed, stored 4xx
// outcomes, and exactly one order under concurrency.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';
import {
  databases,
  domainSource,
  expectError,
  expectRateLimitHeaders,
  INVENTORY_SIZE,
  orderBody,
  partnerClient,
  signedRequest,
  type Credential,
  type Listing,
} from './support/http.ts';

const V1 = '/api/partner/v1';
const HIGH = { search: 10_000, write: 10_000, reporting: 10_000 };

/** The same JSON value written with other whitespace and member order. */
function reserialised(value: unknown, indent = 3): string {
  const reorder = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(reorder);
    if (v && typeof v === 'object')
      return Object.fromEntries(
        Object.entries(v)
          .reverse()
          .map(([k, x]) => [k, reorder(x)]),
      );
    return v;
  };
  return `\n  ${JSON.stringify(reorder(value), null, indent)}\t\n`;
}

describe.each(databases())('idempotency of POST /orders ($name)', ({ databaseUrl }) => {
  let h: Harness;
  const take = domainSource();

  beforeAll(async () => {
    h = await startHarness({ databaseUrl, inventorySize: INVENTORY_SIZE });
  });
  afterAll(async () => {
    await h?.close();
  });

  const post = (cred: Credential, body: unknown, key: string) =>
    signedRequest(h, cred, { method: 'POST', path: `${V1}/orders`, body, idempotencyKey: key });

  async function ordersOf(cred: Credential, domain: string) {
    const r = await signedRequest(h, cred, { path: `${V1}/orders`, query: `domain=${domain}&limit=200` });
    expect(r.status, r.text).toBe(200);
    return r.body.data as Array<{ public_id: string }>;
  }

  async function eventsOf(cred: Credential) {
    const r = await signedRequest(h, cred, { path: `${V1}/events`, query: 'limit=1000' });
    expect(r.status, r.text).toBe(200);
    return r.body.events as Array<{ id: string; type: string; data: { order: { public_id: string } } }>;
  }

  it('the same key and body, re-serialised, replays status and body byte for byte', async () => {
    const cred = await h.mint({ rate_limits: HIGH });
    const d = await take(h, cred);
    const body = orderBody(d, {
      external_payment_ref: 'ch_idem_1',
      buyer: { email: 'jane.doe@example.org', country: 'US', account: 'janedoe' },
    });
    const key = randomUUID();
    const first = await post(cred, JSON.stringify(body), key);
    expect(first.status, first.text).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    const again = await post(cred, reserialised(body), key);
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-type') ?? '').toMatch(/^application\/json/);
    expectRateLimitHeaders(again);
    // A replay is a new request: its own request id.
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));

    const compact = await post(cred, JSON.stringify(JSON.parse(reserialised(body))), key);
    expect(compact.text).toBe(first.text);
    expect(compact.headers.get('idempotent-replayed')).toBe('true');

    const orders = await ordersOf(cred, d.domain);
    expect(orders.map((o) => o.public_id)).toEqual([first.body.public_id]);
    const recorded = (await eventsOf(cred)).filter(
      (e) => e.type === 'order.recorded' && e.data.order.public_id === first.body.public_id,
    );
    expect(recorded).toHaveLength(1);
  });

  it('the replay is the stored answer, not a new execution (the domain is sold by then)', async () => {
    const cred = await h.mint({ rate_limits: HIGH });
    const d = await take(h, cred);
    const key = randomUUID();
    const first = await post(cred, orderBody(d), key);
    expect(first.status).toBe(201);
    // A new key for the same body now finds the domain sold…
    const fresh = await post(cred, orderBody(d), randomUUID());
    expectError(fresh, 'not_found');
    // …but the original key still replays its 201.
    const replay = await post(cred, orderBody(d), key);
    expect(replay.status).toBe(201);
    expect(replay.text).toBe(first.text);
  });

  it('422 price_mismatch is stored and replayed byte for byte', async () => {
    const cred = await h.mint({ rate_limits: HIGH });
    const d = await take(h, cred);
    const key = randomUUID();
    const body = orderBody(d, { expected_price: d.price + 1 });
    const first = await post(cred, body, key);
    expectError(first, 'price_mismatch');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const replay = await post(cred, reserialised(body), key);
    expect(replay.status).toBe(422);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    // Byte for byte, down to the first attempt's request_id.
    expect(replay.text).toBe(first.text);
    expect(replay.body.request_id).toBe(first.headers.get('x-request-id'));
    // The stored outcome belongs to the key: a corrected body under it is a conflict…
    expectError(await post(cred, orderBody(d), key), 'conflict');
    // …and under a new key it succeeds.
    expect((await post(cred, orderBody(d), randomUUID())).status).toBe(201);
  });

  it('404 not_found and 409 domain_reserved are stored and replayed', async () => {
    const cred = await h.mint({ rate_limits: HIGH });
    const unlisted = { domain: 'unlisted-example.com', price: 100, currency: 'USD' };
    const key = randomUUID();
    const first = await post(cred, orderBody(unlisted), key);
    expectError(first, 'not_found');
    const replay = await post(cred, orderBody(unlisted), key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);

    const holder = await h.mint({ rate_limits: HIGH });
    const d = await take(h, holder);
    const q = await signedRequest(h, holder, { method: 'POST', path: `${V1}/quotes`, body: { domain: d.domain } });
    expect(q.status, q.text).toBe(200);
    const k2 = randomUUID();
    const reserved = await post(cred, orderBody(d), k2);
    expectError(reserved, 'domain_reserved');
    const replayed = await post(cred, orderBody(d), k2);
    expect(replayed.status).toBe(409);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.text).toBe(reserved.text);
  });

  it('a 400 is not stored: the same key with a corrected body succeeds', async () => {
    const cred = await h.mint({ rate_limits: HIGH });
    const d = await take(h, cred);
    const key = randomUUID();
    const bad = await post(cred, orderBody(d, { buyer: { email: 'nope' } }), key);
    expectError(bad, 'validation_error');
    const good = await post(cred, orderBody(d), key);
    expect(good.status, good.text).toBe(201);
    expect(good.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a 409 conflict does not disturb the stored answer', async () => {
    const cred = await h.mint({ rate_limits: HIGH });
    const d = await take(h, cred);
    const key = randomUUID();
    const first = await post(cred, orderBody(d), key);
    expect(first.status).toBe(201);
    const conflict = await post(cred, orderBody(d, { buyer: { email: 'someone.else@example.org' } }), key);
    expectError(conflict, 'conflict');
    expect(conflict.headers.get('idempotent-replayed')).toBeNull();
    const replay = await post(cred, orderBody(d), key);
    expect(replay.text).toBe(first.text);
  });

  it('keys are scoped per credential', async () => {
    const a = await h.mint({ rate_limits: HIGH });
    const b = await h.mint({ rate_limits: HIGH });
    const key = randomUUID();
    const da = await take(h, a);
    const db = await take(h, b);
    const ra = await post(a, orderBody(da), key);
    const rb = await post(b, orderBody(db), key);
    expect(ra.status).toBe(201);
    expect(rb.status).toBe(201);
    expect(rb.headers.get('idempotent-replayed')).toBeNull();
    expect(rb.body.public_id).not.toBe(ra.body.public_id);
    // Two credentials of one partner keep their own keys as well.
    const a2 = await h.mint({ rate_limits: HIGH, partner_id: a.partner_id });
    const d2 = await take(h, a2);
    const r2 = await post(a2, orderBody(d2), key);
    expect(r2.status, r2.text).toBe(201);
    expect(r2.body.domain).toBe(d2.domain);
  });

  it('a key is 1 to 255 characters', async () => {
    const cred = await h.mint({ rate_limits: HIGH });
    const d = await take(h, cred);
    expectError(await post(cred, orderBody(d), 'k'.repeat(256)), 'validation_error');
    const r = await post(cred, orderBody(d), 'k'.repeat(255));
    expect(r.status, r.text).toBe(201);
  });

  it('50 concurrent requests with one key through the partner client: one order, 50 identical answers', async () => {
    const cred = await h.mint({ rate_limits: HIGH });
    const d = await take(h, cred);
    const key = randomUUID();
    const client = partnerClient(h, cred, { retry: { maxAttempts: 8 } });
    const results = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const { data, error, response } = await client.POST('/api/partner/v1/orders', {
          body: orderBody(d) as never,
          params: { header: { 'Idempotency-Key': key } },
          parseAs: 'text',
        });
        return {
          status: response.status,
          text: String(data ?? JSON.stringify(error)),
          replayed: response.headers.get('idempotent-replayed'),
        };
      }),
    );
    const bodies = results;
    expect(bodies.map((r) => r.status)).toEqual(Array(50).fill(201));
    const texts = new Set(bodies.map((r) => r.text));
    expect(texts.size).toBe(1);
    // Exactly one of them executed; the rest are replays.
    expect(bodies.filter((r) => r.replayed === null)).toHaveLength(1);
    expect(await ordersOf(cred, d.domain)).toHaveLength(1);
    const recorded = (await eventsOf(cred)).filter((e) => e.type === 'order.recorded');
    expect(recorded).toHaveLength(1);
  });

  it('while the first request executes, the same key gets 409 conflict with Retry-After: 1', async () => {
    const cred = await h.mint({ rate_limits: HIGH });
    const d = await take(h, cred);
    const key = randomUUID();
    const results = await Promise.all(Array.from({ length: 20 }, () => post(cred, orderBody(d), key)));
    const created = results.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null);
    expect(created).toHaveLength(1);
    for (const r of results) {
      if (r.status === 201) expect(r.text).toBe(created[0]!.text);
      else {
        expectError(r, 'conflict');
        expect(r.headers.get('retry-after')).toBe('1');
      }
    }
    expect(await ordersOf(cred, d.domain)).toHaveLength(1);
  });

  it('a request with the key of one still executing: 409 conflict with Retry-After: 1, then the replay', async () => {
    const cred = await h.mint({ rate_limits: HIGH });
    const d = await take(h, cred);
    const key = randomUUID();
    // Hold the first request once it is executing (its key claimed), before it writes anything,
    // until the second has been answered. (Not inside a database transaction: SQLite has one
    // connection, which the second request needs too.)
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const placement = h.store.placement;
    const original = placement.place;
    placement.place = async (...args) => {
      entered();
      await gate;
      return original(...args);
    };
    let first: Promise<Awaited<ReturnType<typeof post>>>;
    try {
      first = post(cred, orderBody(d), key);
      await inside;
      placement.place = original;
      const second = await post(cred, orderBody(d), key);
      expectError(second, 'conflict');
      expectRateLimitHeaders(second);
      expect(second.headers.get('retry-after')).toBe('1');
      // Another body under the same key is a conflict as well.
      expectError(await post(cred, orderBody(d, { external_payment_ref: 'other' }), key), 'conflict');
    } finally {
      placement.place = original;
      release();
    }
    const done = await first;
    expect(done.status, done.text).toBe(201);
    const replay = await post(cred, orderBody(d), key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(done.text);
    expect(await ordersOf(cred, d.domain)).toHaveLength(1);
  });

  it('50 concurrent requests with 50 keys for one domain: exactly one 201, never two orders', async () => {
    const cred = await h.mint({ rate_limits: HIGH });
    const d: Listing = await take(h, cred);
    const results = await Promise.all(Array.from({ length: 50 }, () => post(cred, orderBody(d), randomUUID())));
    const created = results.filter((r) => r.status === 201);
    expect(created.map((r) => r.status)).toEqual([201]);
    for (const r of results) if (r.status !== 201) expectError(r, 'not_found');
    expect(await ordersOf(cred, d.domain)).toHaveLength(1);
    const recorded = (await eventsOf(cred)).filter((e) => e.type === 'order.recorded');
    expect(recorded).toHaveLength(1);
  });

  it('50 concurrent requests from two partners for one domain: one order in all', async () => {
    const a = await h.mint({ rate_limits: HIGH });
    const b = await h.mint({ rate_limits: HIGH });
    const d = await take(h, a);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => post(i % 2 ? a : b, orderBody(d), randomUUID())),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    const total = (await ordersOf(a, d.domain)).length + (await ordersOf(b, d.domain)).length;
    expect(total).toBe(1);
  });
});
