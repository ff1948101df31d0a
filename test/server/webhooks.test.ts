// Webhook registration, signed deliveries from the durable outbox, retries, delivery after a
// restart, and the event history (GET /events) as the contract fixes them (the "Lists" paragraph, x-webhook-delivery;
// x-webhook-delivery of the partner document).
import { createHmac, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';
import { DELIVERED_KINDS, ORDER_TRANSITIONS, partnerDoc } from './support/contract.ts';
import {
  createOrder,
  databases,
  domainSource,
  eventually,
  expectError,
  expectRateLimitHeaders,
  INVENTORY_SIZE,
  signedRequest,
  type Credential,
} from './support/http.ts';
import { startReceiver, type Delivery, type Receiver } from './support/receiver.ts';

const V1 = '/api/partner/v1';
const WEBHOOKS = '/api/partner/webhooks';
const HIGH = { search: 10_000, write: 10_000, reporting: 10_000 };
const RFC3339_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const DELIVERY_HEADERS = (partnerDoc['x-webhook-delivery'] as unknown as { headers: string[] }).headers;

const hmacHex = (secret: string, raw: Buffer) =>
  createHmac('sha256', Buffer.from(secret, 'utf8')).update(raw).digest('hex');

/** Checks one delivery against the contract: POST, JSON, the four headers, the signature. */
function expectSignedDelivery(d: Delivery, secret: string, attempt: number): void {
  expect(d.method).toBe('POST');
  expect(String(d.headers['content-type'])).toMatch(/^application\/json/);
  for (const name of DELIVERY_HEADERS) expect(d.headers[name.toLowerCase()], name).toBeTruthy();
  const signature = String(d.headers['x-service-signature']);
  expect(signature).toMatch(/^[0-9a-f]{64}$/);
  expect(signature).toBe(hmacHex(secret, d.raw));
  expect(d.headers['x-service-event-id']).toBe(d.body.id);
  expect(d.headers['x-service-event-type']).toBe(d.body.type);
  expect(d.headers['x-service-delivery-attempt']).toBe(String(attempt));
  expect(DELIVERED_KINDS).toContain(d.body.type);
  expect(Object.keys(d.body).sort()).toEqual(['created_at', 'data', 'id', 'partner_id', 'type']);
  expect(d.body.created_at).toMatch(RFC3339_Z);
}

describe.each(databases())('webhooks and events ($name)', ({ databaseUrl }) => {
  let h: Harness;
  const take = domainSource();
  const receivers: Receiver[] = [];
  let ticker: NodeJS.Timeout | undefined;

  beforeAll(async () => {
    // Names under .nxdomain.test do not resolve; every other name is 127.0.0.1.
    const resolve = async (name: string) => {
      if (name.endsWith('.nxdomain.test'))
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
      return ['127.0.0.1'];
    };
    h = await startHarness({ databaseUrl, inventorySize: INVENTORY_SIZE, resolve });
  });
  afterEach(() => {
    if (ticker) clearInterval(ticker);
    ticker = undefined;
  });
  afterAll(async () => {
    await h?.close();
    await Promise.all(receivers.map((r) => r.close()));
  });

  async function receiver(): Promise<Receiver> {
    const r = await startReceiver();
    receivers.push(r);
    return r;
  }

  const register = (cred: Credential, body: unknown, target = h) =>
    signedRequest(target, cred, { method: 'PUT', path: WEBHOOKS, body });

  /** A partner with a registered receiver. */
  async function partnerWithReceiver(target = h) {
    const cred = await target.mint({ rate_limits: HIGH });
    const rx = await receiver();
    const secret = `whsec_${randomUUID()}`;
    const r = await register(cred, { url: rx.url, secret }, target);
    expect(r.status, r.text).toBe(200);
    return { cred, rx, secret };
  }

  async function allEvents(cred: Credential, target = h) {
    const r = await signedRequest(target, cred, { path: `${V1}/events`, query: 'limit=1000' });
    expect(r.status, r.text).toBe(200);
    return r.body.events as any[];
  }

  /** Moves the test clock on while deliveries are awaited, so scheduled retries come due. */
  function keepTimeMoving(target = h, stepMs = 50) {
    ticker = setInterval(() => target.clock.advance(stepMs), 10);
  }

  const admin = async (publicId: string, action: string) => {
    const res = await h.admin(`/orders/${publicId}/${action}`);
    expect(res.status, `${action}: ${await res.clone().text()}`).toBe(200);
    return res.json();
  };

  describe('registration', () => {
    it('registers and re-registers: 200 with url, active, created_at and updated_at', async () => {
      const cred = await h.mint({ rate_limits: HIGH });
      const rx = await receiver();
      const r = await register(cred, { url: rx.url, secret: 'a-secret-of-16ch' });
      expect(r.status, r.text).toBe(200);
      expectRateLimitHeaders(r);
      expect(r.body).toEqual({
        url: rx.url,
        active: true,
        created_at: expect.stringMatching(RFC3339_Z),
        updated_at: expect.stringMatching(RFC3339_Z),
      });
      expect(r.text).not.toContain('a-secret-of-16ch');
      h.clock.advance(2000);
      const again = await register(cred, { url: `${rx.url}?v=2`, secret: 'another-secret-0123456789' });
      expect(again.status, again.text).toBe(200);
      expect(again.body.url).toBe(`${rx.url}?v=2`);
      expect(again.body.created_at).toBe(r.body.created_at);
      expect(Date.parse(again.body.updated_at)).toBeGreaterThan(Date.parse(r.body.updated_at));
    });

    it('sandbox accepts http://127.0.0.1 and loopback names', async () => {
      const cred = await h.mint({ rate_limits: HIGH });
      for (const url of ['http://127.0.0.1:9/hook', 'http://localhost:8080/x', 'https://127.0.0.1/hook']) {
        const r = await register(cred, { url, secret: '0123456789abcdef' });
        expect(r.status, `${url}: ${r.text}`).toBe(200);
      }
    });

    it('a secret of 16 to 256 characters; shorter or longer is 400', async () => {
      const cred = await h.mint({ rate_limits: HIGH });
      for (const secret of ['', 'short', '0123456789abcde', 'x'.repeat(257)]) {
        const r = await register(cred, { url: 'http://127.0.0.1:9/hook', secret });
        expectError(r, 'validation_error');
        expectRateLimitHeaders(r);
      }
      for (const secret of ['0123456789abcdef', 'x'.repeat(256)]) {
        expect((await register(cred, { url: 'http://127.0.0.1:9/hook', secret })).status).toBe(200);
      }
    });

    it('a url that is not an http(s) URL, or a missing member, is 400', async () => {
      const cred = await h.mint({ rate_limits: HIGH });
      for (const body of [
        { url: 'not a url', secret: '0123456789abcdef' },
        { url: 'ftp://127.0.0.1/hook', secret: '0123456789abcdef' },
        { url: '127.0.0.1:8080/hook', secret: '0123456789abcdef' },
        { url: 'http://', secret: '0123456789abcdef' },
        { secret: '0123456789abcdef' },
        { url: 'http://127.0.0.1:9/hook' },
        { url: 'http://127.0.0.1:9/hook', secret: '0123456789abcdef', active: false },
      ]) {
        expectError(await register(cred, body), 'validation_error');
      }
    });

    it('live credentials need https and a public address', async () => {
      const live = await h.mint({ environment: 'live', scopes: ['webhook'], approved: true });
      for (const url of [
        'http://93.184.216.34/hook',
        'https://127.0.0.1/hook',
        'https://10.1.2.3/hook',
        'https://169.254.169.254/latest',
        'https://[::1]/hook',
        'https://192.168.1.20/hook',
        // The harness resolves every name to 127.0.0.1: a name pointing at loopback is refused.
        'https://partner.example.net/hook',
      ]) {
        const r = await register(live, { url, secret: '0123456789abcdef' });
        expect(r.status, `${url}: ${r.text}`).toBe(400);
        expectError(r, 'validation_error');
      }
      const ok = await register(live, { url: 'https://93.184.216.34/hook', secret: '0123456789abcdef' });
      expect(ok.status, ok.text).toBe(200);
    });
  });

  describe('names that do not resolve (x-url-rules)', () => {
    it('live refuses the name; sandbox accepts it and each attempt reports a refused destination', async () => {
      const live = await h.mint({ environment: 'live', scopes: ['webhook'], approved: true });
      const refused = await register(live, { url: 'https://hooks.nxdomain.test/in', secret: '0123456789abcdef' });
      expectError(refused, 'validation_error');
      expect(refused.body.message).toContain('url host hooks.nxdomain.test must resolve, from this server, only to');
      expect(refused.body.details).toEqual([{ path: '/body/url', message: refused.body.message }]);

      const cred = await h.mint({ rate_limits: HIGH });
      const accepted = await register(cred, { url: 'http://hooks.nxdomain.test:9/in', secret: '0123456789abcdef' });
      expect(accepted.status, accepted.text).toBe(200);
      await createOrder(h, cred, await take(h, cred));
      const delivery = await eventually(
        async () => {
          const r = await signedRequest(h, cred, { path: WEBHOOKS });
          return r.body.recent_deliveries?.[0]?.attempts >= 1 ? r.body.recent_deliveries[0] : undefined;
        },
        5000,
        'the first attempt',
      );
      expect(delivery).toMatchObject({
        status: 'pending',
        last_error:
          "destination_refused: the URL's host does not resolve, or not only to addresses this deployment's webhooks may reach (URL rules of PUT /api/partner/webhooks)",
      });
    });
  });

  describe('GET /api/partner/webhooks', () => {
    it('is 404 not_found before a registration', async () => {
      const cred = await h.mint({ rate_limits: HIGH });
      const r = await signedRequest(h, cred, { path: WEBHOOKS });
      expectError(r, 'not_found');
      expectRateLimitHeaders(r);
    });

    it('DELETE deactivates: pending deliveries are given up, later events are not queued, a PUT reactivates; 404 before any registration', async () => {
      const fresh = await h.mint({ rate_limits: HIGH });
      expectError(await signedRequest(h, fresh, { method: 'DELETE', path: WEBHOOKS }), 'not_found');
      const { cred, rx, secret } = await partnerWithReceiver();
      rx.respond(() => 503);
      await createOrder(h, cred, await take(h, cred));
      await rx.waitFor((all) => all.length >= 1);
      const pending = await signedRequest(h, cred, { path: WEBHOOKS });
      expect(pending.body.recent_deliveries.map((d: { status: string }) => d.status)).toEqual(['pending']);
      const off = await signedRequest(h, cred, { method: 'DELETE', path: WEBHOOKS });
      expect(off.status, off.text).toBe(200);
      expectRateLimitHeaders(off);
      expect(off.body).toMatchObject({ url: rx.url, active: false });
      const again = await signedRequest(h, cred, { method: 'DELETE', path: WEBHOOKS });
      expect(again.status, again.text).toBe(200);
      const after = await signedRequest(h, cred, { path: WEBHOOKS });
      expect(after.body.active).toBe(false);
      expect(after.body.recent_deliveries).toEqual([
        expect.objectContaining({
          status: 'failed',
          next_attempt_at: null,
          last_error: expect.stringMatching(/deactivated/),
        }),
      ]);
      // An event while inactive is in the history only; time moving on brings no attempt.
      await createOrder(h, cred, await take(h, cred));
      keepTimeMoving(h, 10_000);
      await new Promise((r) => setTimeout(r, 200));
      clearInterval(ticker);
      expect(rx.deliveries).toHaveLength(1);
      expect((await signedRequest(h, cred, { path: WEBHOOKS })).body.recent_deliveries).toHaveLength(1);
      expect(await allEvents(cred)).toHaveLength(2);
      rx.respond(() => 200);
      expect((await register(cred, { url: rx.url, secret })).body.active).toBe(true);
      await createOrder(h, cred, await take(h, cred));
      await rx.waitFor((all) => all.length >= 2);
      expect(rx.deliveries[1]!.answered).toBe(200);
    });

    it('shows the registration and each delivery: a failed attempt with its reason, then delivered', async () => {
      const { cred, rx } = await partnerWithReceiver();
      const registered = await signedRequest(h, cred, { path: WEBHOOKS });
      expect(registered.status, registered.text).toBe(200);
      expectRateLimitHeaders(registered);
      expect(registered.body).toEqual({
        url: rx.url,
        active: true,
        created_at: expect.stringMatching(RFC3339_Z),
        updated_at: expect.stringMatching(RFC3339_Z),
        recent_deliveries: [],
      });

      rx.respond((_d, n) => (n === 0 ? 503 : 200));
      const order = await createOrder(h, cred, await take(h, cred));
      await rx.waitFor((all) => all.length >= 1);
      const [event] = await allEvents(cred);
      const failing = await eventually(
        async () => {
          const r = await signedRequest(h, cred, { path: WEBHOOKS });
          return r.body.recent_deliveries[0]?.attempts === 1 ? r.body.recent_deliveries : undefined;
        },
        5000,
        'the failed attempt recorded',
      );
      expect(failing).toEqual([
        {
          event_id: event.id,
          event_type: 'order.recorded',
          status: 'pending',
          attempts: 1,
          last_error: 'http_status 503: the receiver answered HTTP 503',
          next_attempt_at: expect.stringMatching(RFC3339_Z),
          delivered_at: null,
        },
      ]);

      keepTimeMoving();
      await rx.waitFor((all) => all.length >= 2);
      const delivered = await eventually(
        async () => {
          const r = await signedRequest(h, cred, { path: WEBHOOKS });
          return r.body.recent_deliveries[0]?.status === 'delivered' ? r.body.recent_deliveries : undefined;
        },
        5000,
        'the delivery recorded',
      );
      expect(delivered).toEqual([
        {
          event_id: event.id,
          event_type: 'order.recorded',
          status: 'delivered',
          attempts: 2,
          last_error: null,
          next_attempt_at: null,
          delivered_at: expect.stringMatching(RFC3339_Z),
        },
      ]);
      clearInterval(ticker);

      // Newest first.
      await admin(order.public_id, 'start-transfer');
      const both = await eventually(
        async () => {
          const r = await signedRequest(h, cred, { path: WEBHOOKS });
          return r.body.recent_deliveries.length === 2 ? r.body.recent_deliveries : undefined;
        },
        5000,
        'two deliveries',
      );
      expect(both.map((d: { event_type: string }) => d.event_type)).toEqual([
        'order.transfer_started',
        'order.recorded',
      ]);
    });

    it('shows another partner nothing of this one', async () => {
      const a = await partnerWithReceiver();
      await createOrder(h, a.cred, await take(h, a.cred));
      await a.rx.waitFor((all) => all.length >= 1);
      const b = await partnerWithReceiver();
      const r = await signedRequest(h, b.cred, { path: WEBHOOKS });
      expect(r.body.recent_deliveries).toEqual([]);
    });

    it('lists at most 20, the newest', async () => {
      const { cred, rx } = await partnerWithReceiver();
      const order = await createOrder(h, cred, await take(h, cred));
      // Each hold / clear-hold pair delivers one event (order.manual_review_cleared).
      for (let i = 0; i < 21; i++) {
        await admin(order.public_id, 'hold');
        await admin(order.public_id, 'clear-hold');
      }
      await rx.waitFor((all) => all.length >= 22, 10_000, '22 deliveries');
      const r = await signedRequest(h, cred, { path: WEBHOOKS });
      expect(r.body.recent_deliveries).toHaveLength(20);
      const delivered = (await allEvents(cred)).filter((e) => DELIVERED_KINDS.includes(e.type)).map((e) => e.id);
      expect(r.body.recent_deliveries.map((d: { event_id: string }) => d.event_id)).toEqual(
        delivered.slice(-20).reverse(),
      );
    });
  });

  describe('deliveries', () => {
    it('an order delivers order.recorded: signed, with the four headers, equal to the event in GET /events', async () => {
      const { cred, rx, secret } = await partnerWithReceiver();
      const order = await createOrder(h, cred, await take(h, cred));
      const [d] = await rx.waitFor((all) => all.length >= 1, 5000, 'order.recorded');
      expectSignedDelivery(d!, secret, 1);
      expect(d!.path).toBe(new URL(rx.url).pathname);
      expect(d!.body.type).toBe('order.recorded');
      expect(d!.body.partner_id).toBe(cred.partner_id);
      expect(d!.body.data.order).toEqual({
        public_id: order.public_id,
        domain: order.domain,
        status: 'EXTERNALLY_PAID',
        sale_price_cents: order.sale_price_cents,
        currency: order.currency,
      });
      const events = await allEvents(cred);
      expect(events).toHaveLength(1);
      expect(events[0]).toEqual(d!.body);
      // The order's timeline names the same event.
      const detail = await signedRequest(h, cred, { path: `${V1}/orders/${order.public_id}` });
      expect(detail.body.timeline[0].event_id).toBe(d!.body.id);
    });

    it('operator moves deliver exactly the delivered kinds, each equal to its event in the history', async () => {
      const { cred, rx, secret } = await partnerWithReceiver();
      const o1 = await createOrder(h, cred, await take(h, cred));
      const o2 = await createOrder(h, cred, await take(h, cred));
      const o3 = await createOrder(h, cred, await take(h, cred));
      for (const action of ['hold', 'clear-hold', 'start-transfer', 'confirm-delivery'])
        await admin(o1.public_id, action);
      await admin(o2.public_id, 'cancel');
      await admin(o3.public_id, 'refund');

      const history = await allEvents(cred);
      const delivered = history.filter((e) => DELIVERED_KINDS.includes(e.type));
      const historyOnly = history.filter((e) => !DELIVERED_KINDS.includes(e.type));
      // Every kind the moves write, per the admin contract's x-transitions.
      const expectedTypes = [
        'order.recorded',
        'order.recorded',
        'order.recorded',
        ...['hold', 'clear-hold', 'start-transfer', 'confirm-delivery', 'cancel', 'refund'].flatMap((a) => [
          ORDER_TRANSITIONS[a]!.event,
          ...ORDER_TRANSITIONS[a]!['also-writes'].map((w) => w.event),
        ]),
      ];
      expect(history.map((e) => e.type).sort()).toEqual(expectedTypes.sort());
      expect(historyOnly.map((e) => e.type).sort()).toEqual([
        'order.cancelled',
        'order.held',
        'transfer.completed',
        'transfer.started',
      ]);

      await rx.waitFor(
        (all) => new Set(all.map((d) => d.body.id)).size >= delivered.length,
        5000,
        `${delivered.length} deliveries`,
      );
      await new Promise((r) => setTimeout(r, 100));
      const byId = new Map(rx.deliveries.map((d) => [d.body.id as string, d]));
      expect([...byId.keys()].sort()).toEqual(delivered.map((e) => e.id).sort());
      for (const event of delivered) {
        const d = byId.get(event.id)!;
        expectSignedDelivery(d, secret, 1);
        expect(d.body).toEqual(event);
      }
      // Each event carries the order as it was at that moment.
      const statusOf = (type: string, publicId: string) =>
        history.find((e) => e.type === type && e.data.order.public_id === publicId)?.data.order.status;
      expect(statusOf('order.recorded', o1.public_id)).toBe('EXTERNALLY_PAID');
      expect(statusOf('order.held', o1.public_id)).toBe('MANUAL_REVIEW');
      expect(statusOf('order.manual_review_cleared', o1.public_id)).toBe('EXTERNALLY_PAID');
      expect(statusOf('order.transfer_started', o1.public_id)).toBe('TRANSFER_IN_PROGRESS');
      expect(statusOf('order.transfer_completed', o1.public_id)).toBe('TRANSFER_COMPLETED');
      expect(statusOf('order.refunded', o2.public_id)).toBe('CANCELLED');
      expect(statusOf('order.refunded', o3.public_id)).toBe('REFUNDED');
    });

    it('a receiver that fails twice (500) gets the event again, on attempt 3, then no more', async () => {
      const { cred, rx, secret } = await partnerWithReceiver();
      rx.respond((_d, n) => (n < 2 ? 500 : 200));
      await createOrder(h, cred, await take(h, cred));
      keepTimeMoving();
      await rx.waitFor((all) => all.length >= 3, 5000, 'three attempts');
      clearInterval(ticker);
      const [one, two, three] = rx.deliveries;
      expectSignedDelivery(one!, secret, 1);
      expectSignedDelivery(two!, secret, 2);
      expectSignedDelivery(three!, secret, 3);
      expect(new Set(rx.deliveries.map((d) => d.body.id)).size).toBe(1);
      expect(two!.raw.equals(one!.raw)).toBe(true);
      expect(three!.raw.equals(one!.raw)).toBe(true);
      expect(three!.answered).toBe(200);
      // Delivered: time moving on brings no fourth attempt.
      keepTimeMoving(h, 10_000);
      await new Promise((r) => setTimeout(r, 200));
      expect(rx.deliveries).toHaveLength(3);
    });

    it('a receiver that never succeeds gets x-webhook-delivery max-attempts attempts, then no more', async () => {
      const maxAttempts = (partnerDoc['x-webhook-delivery'] as unknown as { 'max-attempts': number })['max-attempts'];
      const { cred, rx, secret } = await partnerWithReceiver();
      rx.respond(() => 500);
      await createOrder(h, cred, await take(h, cred));
      // The longest wait of the schedule is 24 h, scaled by the harness to 86.4 s of test clock.
      keepTimeMoving(h, 20_000);
      await rx.waitFor((all) => all.length >= maxAttempts, 10_000, `${maxAttempts} attempts`);
      await new Promise((r) => setTimeout(r, 300));
      clearInterval(ticker);
      expect(rx.deliveries).toHaveLength(maxAttempts);
      rx.deliveries.forEach((d, i) => expectSignedDelivery(d, secret, i + 1));
      expect(new Set(rx.deliveries.map((d) => d.body.id)).size).toBe(1);
      // The event stays in the history.
      expect((await allEvents(cred)).map((e) => e.id)).toEqual([rx.deliveries[0]!.body.id]);
    });

    it('a retry waits for its back-off: no second attempt before time moves on', async () => {
      const { cred, rx } = await partnerWithReceiver();
      rx.respond(() => 503);
      await createOrder(h, cred, await take(h, cred));
      await rx.waitFor((all) => all.length >= 1);
      await new Promise((r) => setTimeout(r, 150));
      expect(rx.deliveries).toHaveLength(1);
      rx.respond(() => 200);
      keepTimeMoving();
      await rx.waitFor((all) => all.length >= 2);
      expect(rx.deliveries[1]!.headers['x-service-delivery-attempt']).toBe('2');
    });

    it('each attempt is signed with the secret registered at the time of the attempt', async () => {
      const { cred, rx, secret } = await partnerWithReceiver();
      rx.respond((_d, n) => (n === 0 ? 500 : 200));
      await createOrder(h, cred, await take(h, cred));
      await rx.waitFor((all) => all.length >= 1);
      const rotated = `rotated_${randomUUID()}`;
      expect((await register(cred, { url: rx.url, secret: rotated })).status).toBe(200);
      keepTimeMoving();
      await rx.waitFor((all) => all.length >= 2);
      expectSignedDelivery(rx.deliveries[0]!, secret, 1);
      expectSignedDelivery(rx.deliveries[1]!, rotated, 2);
    });

    it('events of one partner never reach another partner’s receiver', async () => {
      const a = await partnerWithReceiver();
      const b = await partnerWithReceiver();
      await createOrder(h, a.cred, await take(h, a.cred));
      await a.rx.waitFor((all) => all.length >= 1);
      await new Promise((r) => setTimeout(r, 100));
      expect(b.rx.deliveries).toHaveLength(0);
      expect(await allEvents(b.cred)).toEqual([]);
    });
  });

  describe('GET /events', () => {
    it('after_id, limit and next_cursor (GET /events)', async () => {
      const cred = await h.mint({ rate_limits: HIGH });
      const empty = await signedRequest(h, cred, { path: `${V1}/events` });
      expect(empty.status).toBe(200);
      expect(empty.body).toEqual({ events: [], next_cursor: null });
      expectRateLimitHeaders(empty);

      const orders = [];
      for (let i = 0; i < 3; i++) orders.push(await createOrder(h, cred, await take(h, cred)));
      await admin(orders[0].public_id, 'start-transfer');
      const all = await allEvents(cred);
      expect(all).toHaveLength(5);
      // Creation order.
      expect(all.slice(0, 3).map((e) => e.data.order.public_id)).toEqual(orders.map((o) => o.public_id));
      expect(new Set(all.map((e) => e.id)).size).toBe(5);

      // Walk with limit=2: 2, 2, 1, then an empty page that hands back its after_id.
      const seen: string[] = [];
      let after: string | undefined;
      const sizes: number[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await signedRequest(h, cred, {
          path: `${V1}/events`,
          query: `limit=2${after ? `&after_id=${after}` : ''}`,
        });
        expect(r.status, r.text).toBe(200);
        sizes.push(r.body.events.length);
        seen.push(...r.body.events.map((e: { id: string }) => e.id));
        const last = r.body.events[r.body.events.length - 1];
        expect(r.body.next_cursor).toBe(last ? last.id : after);
        after = r.body.next_cursor;
      }
      expect(sizes).toEqual([2, 2, 1, 0, 0]);
      expect(seen).toEqual(all.map((e) => e.id));

      // A new event shows up after the cursor the empty page returned.
      await admin(orders[1].public_id, 'hold');
      const more = await signedRequest(h, cred, { path: `${V1}/events`, query: `after_id=${after}` });
      expect(more.body.events.map((e: { type: string }) => e.type)).toEqual(['order.held']);
      expect(more.body.next_cursor).toBe(more.body.events[0].id);

      // after_id is exclusive.
      const fromSecond = await signedRequest(h, cred, { path: `${V1}/events`, query: `after_id=${all[1].id}&limit=1` });
      expect(fromSecond.body.events.map((e: { id: string }) => e.id)).toEqual([all[2].id]);

      // Events never change: the first still shows the order as recorded.
      const again = await allEvents(cred);
      expect(again.slice(0, 5)).toEqual(all);
      expect(again[0].data.order.status).toBe('EXTERNALLY_PAID');
    });

    it('limit defaults to 100 and accepts up to 1000', async () => {
      const cred = await h.mint({ rate_limits: HIGH });
      const order = await createOrder(h, cred, await take(h, cred));
      for (let i = 0; i < 50; i++) {
        await admin(order.public_id, 'hold');
        await admin(order.public_id, 'clear-hold');
      }
      const page = await signedRequest(h, cred, { path: `${V1}/events` });
      expect(page.body.events).toHaveLength(100);
      expect(page.body.next_cursor).toBe(page.body.events[99].id);
      const rest = await signedRequest(h, cred, { path: `${V1}/events`, query: `after_id=${page.body.next_cursor}` });
      expect(rest.body.events).toHaveLength(1);
      const big = await signedRequest(h, cred, { path: `${V1}/events`, query: 'limit=1000' });
      expect(big.body.events).toHaveLength(101);
    });

    it('an unknown after_id, or another partner’s event id, is 400 invalid_cursor', async () => {
      const a = await h.mint({ rate_limits: HIGH });
      const b = await h.mint({ rate_limits: HIGH });
      await createOrder(h, a, await take(h, a));
      const [event] = await allEvents(a);
      expectError(await signedRequest(h, b, { path: `${V1}/events`, query: `after_id=${event.id}` }), 'invalid_cursor');
      expectError(
        await signedRequest(h, a, { path: `${V1}/events`, query: 'after_id=evt_unknown0000000000' }),
        'invalid_cursor',
      );
      const ok = await signedRequest(h, a, { path: `${V1}/events`, query: `after_id=${event.id}` });
      expect(ok.body).toEqual({ events: [], next_cursor: event.id });
    });
  });

  describe('a delivery pending when the server stops', () => {
    let dir: string | undefined;
    afterAll(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('is delivered after a restart on the same database', async () => {
      let first: Harness;
      if (databaseUrl) first = await startHarness({ databaseUrl, inventorySize: INVENTORY_SIZE });
      else {
        dir = mkdtempSync(join(tmpdir(), 'webhooks-'));
        first = await startHarness({ sqliteFile: join(dir, 'service.sqlite'), inventorySize: INVENTORY_SIZE });
      }
      let second: Harness | undefined;
      try {
        const { cred, rx, secret } = await partnerWithReceiver(first);
        rx.respond(() => 500);
        const order = await createOrder(first, cred, await take(first, cred));
        await rx.waitFor((all) => all.length >= 1, 5000, 'the first attempt');
        await first.close();

        rx.respond(() => 200);
        second = await startHarness({ sameDatabaseAs: first });
        keepTimeMoving(second);
        await rx.waitFor((all) => all.some((d) => d.answered === 200), 5000, 'delivery after the restart');
        const last = rx.deliveries[rx.deliveries.length - 1]!;
        expectSignedDelivery(last, secret, rx.deliveries.length);
        expect(last.body.id).toBe(rx.deliveries[0]!.body.id);
        expect(last.body.data.order.public_id).toBe(order.public_id);
        expect(last.raw.equals(rx.deliveries[0]!.raw)).toBe(true);
        // The history survived the restart as well.
        const events = await allEvents(cred, second);
        expect(events.map((e) => e.id)).toEqual([last.body.id]);
      } finally {
        if (ticker) clearInterval(ticker);
        await second?.close();
      }
    });

    it('is delivered after a restart when the server stopped before the first attempt', async () => {
      let first: Harness;
      let localDir: string | undefined;
      if (databaseUrl) first = await startHarness({ databaseUrl, inventorySize: INVENTORY_SIZE, dispatch: false });
      else {
        localDir = mkdtempSync(join(tmpdir(), 'webhooks-'));
        first = await startHarness({
          sqliteFile: join(localDir, 'service.sqlite'),
          inventorySize: INVENTORY_SIZE,
          dispatch: false,
        });
      }
      let second: Harness | undefined;
      try {
        const { cred, rx, secret } = await partnerWithReceiver(first);
        await createOrder(first, cred, await take(first, cred));
        await first.close();
        expect(rx.deliveries).toHaveLength(0);
        second = await startHarness({ sameDatabaseAs: first });
        await rx.waitFor((all) => all.length >= 1, 5000, 'delivery after the restart');
        expectSignedDelivery(rx.deliveries[0]!, secret, 1);
        expect(rx.deliveries[0]!.body.type).toBe('order.recorded');
      } finally {
        await second?.close();
        if (localDir) rmSync(localDir, { recursive: true, force: true });
      }
    });
  });
});
