// Partner-collected sales end to end: discovery, quotes, orders, order reads and lists, the
// operator's state machine (the admin contract's x-transitions, applied move by move), partner
// refunds and the test clock.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalQuery, HEADERS, sign } from '../../client/protocol/index.ts';
import { startHarness, type Harness } from './harness.ts';
import { ORDER_TRANSITIONS, type Transition } from './support/contract.ts';
import {
  createOrder,
  databases,
  domainSource,
  expectError,
  expectRateLimitHeaders,
  INVENTORY_SIZE,
  nowSeconds,
  orderBody,
  partnerClient,
  signedRequest,
  toReply,
  type Credential,
} from './support/http.ts';

const V1 = '/api/partner/v1';
const HIGH = { search: 10_000, write: 10_000, reporting: 10_000 };
const RFC3339_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const PAYMENT_MODEL = 'partner_collected';

/** The status a move leads to for a partner-collected order. */
const targetOf = (t: Transition) => (typeof t.to === 'string' ? t.to : t.to[PAYMENT_MODEL]!);

/**
 * For each status a partner-collected order can reach through operator moves, the shortest list
 * of moves from EXTERNALLY_PAID, found by walking x-transitions (not written by hand).
 */
function pathsFromRecorded(): Map<string, string[]> {
  const paths = new Map<string, string[]>([['EXTERNALLY_PAID', []]]);
  const queue = ['EXTERNALLY_PAID'];
  while (queue.length > 0) {
    const status = queue.shift()!;
    for (const [action, t] of Object.entries(ORDER_TRANSITIONS)) {
      if (!t.from.includes(status)) continue;
      const to = targetOf(t);
      if (!paths.has(to)) {
        paths.set(to, [...paths.get(status)!, action]);
        queue.push(to);
      }
    }
  }
  return paths;
}

describe.each(databases())('orders ($name)', ({ databaseUrl }) => {
  let h: Harness;
  let cred: Credential;
  const take = domainSource();

  beforeAll(async () => {
    h = await startHarness({ databaseUrl, inventorySize: INVENTORY_SIZE });
    cred = await h.mint({ rate_limits: HIGH });
  });
  afterAll(async () => {
    await h?.close();
  });

  const admin = async (publicId: string, action: string, body?: unknown) =>
    toReply(await h.admin(`/orders/${publicId}/${action}`, body));
  const events = async (c: Credential) => {
    const r = await signedRequest(h, c, { path: `${V1}/events`, query: 'limit=1000' });
    expect(r.status, r.text).toBe(200);
    return r.body.events as any[];
  };
  const getOrder = async (c: Credential, publicId: string) => {
    const r = await signedRequest(h, c, { path: `${V1}/orders/${publicId}` });
    expect(r.status, r.text).toBe(200);
    return r.body;
  };

  describe('the happy path through the partner client', () => {
    it('search, pricing, quote, order, order with timeline, list', async () => {
      const partner = await h.mint({ rate_limits: HIGH });
      const client = partnerClient(h, partner);

      const search = await client.GET('/api/partner/v1/domains/search', { params: { query: { q: 'coffee' } } });
      expect(search.response.status, JSON.stringify(search.error)).toBe(200);
      const hits = search.data!.results;
      expect(hits.length).toBeGreaterThan(0);
      expect(hits.length).toBeLessThanOrEqual(5);
      const hit = hits.find((x) => x.available)!;
      expect(hit).toBeDefined();

      const detail = await client.GET('/api/partner/v1/domains/{name}', { params: { path: { name: hit.domain } } });
      expect(detail.response.status).toBe(200);
      expect(detail.data!.domain).toBe(hit.domain);
      expect(detail.data!.available).toBe(true);
      expect(detail.data!.price_cents).toBe(hit.price_cents);

      const pricing = await client.GET('/api/partner/v1/pricing', { params: { query: { domain: hit.domain } } });
      expect(pricing.response.status).toBe(200);
      expect(pricing.data!.price_cents).toBe(hit.price_cents);
      expect(pricing.data!.floor_cents).toBeLessThanOrEqual(pricing.data!.price_cents);
      expect(pricing.data!.currency).toBe('USD');

      const quote = await client.POST('/api/partner/v1/quotes', { body: { domain: hit.domain } });
      expect(quote.response.status, JSON.stringify(quote.error)).toBe(200);
      expect(quote.data!.domain).toBe(hit.domain);
      expect(quote.data!.price_cents).toBe(pricing.data!.price_cents);
      expect(quote.data!.currency).toBe(pricing.data!.currency);
      expect(quote.data!.expires_at).toMatch(RFC3339_Z);
      // Ten minutes of the partner's business time (its test clock is at the real time here).
      expect(Math.abs(Date.parse(quote.data!.expires_at) - (h.clock.now() + 600_000))).toBeLessThan(1000);

      const order = await client.POST('/api/partner/v1/orders', {
        body: {
          domain: hit.domain,
          expected_price: quote.data!.price_cents,
          currency: quote.data!.currency,
          buyer: { email: 'jane.doe@example.org', country: 'DE', account: 'janedoe' },
          quote_id: quote.data!.quote_id,
          external_payment_ref: 'ch_3PqR8sT2uV4wX6yZ',
        },
        params: { header: { 'Idempotency-Key': randomUUID() } },
      });
      expect(order.response.status, JSON.stringify(order.error)).toBe(201);
      expectRateLimitHeaders(
        { status: order.response.status, headers: order.response.headers, text: '', body: order.data },
        { className: 'write' },
      );
      const o = order.data!;
      expect(o).toMatchObject({
        domain: hit.domain,
        status: 'EXTERNALLY_PAID',
        sale_price_cents: quote.data!.price_cents,
        currency: quote.data!.currency,
        payment_model: 'partner_collected',
        buyer: { email: 'jane.doe@example.org', country: 'DE', account: 'janedoe' },
        quote_id: quote.data!.quote_id,
        external_payment_ref: 'ch_3PqR8sT2uV4wX6yZ',
        checkout_session_id: null,
      });
      expect(o.public_id).toMatch(/^ord_[0-9A-Za-z]{6,40}$/);
      expect(o.created_at).toMatch(RFC3339_Z);
      expect(o.updated_at).toMatch(RFC3339_Z);

      const read = await client.GET('/api/partner/v1/orders/{public_id}', {
        params: { path: { public_id: o.public_id } },
      });
      expect(read.response.status).toBe(200);
      const { timeline, ...rest } = read.data!;
      expect(rest).toEqual(o);
      expect(timeline).toHaveLength(1);
      const [recorded] = await events(partner);
      expect(timeline[0]).toEqual({
        status: 'EXTERNALLY_PAID',
        event_type: 'order.recorded',
        event_id: recorded.id,
        at: o.created_at,
        note: null,
      });
      expect(recorded.data.order).toEqual({
        public_id: o.public_id,
        domain: o.domain,
        status: 'EXTERNALLY_PAID',
        sale_price_cents: o.sale_price_cents,
        currency: o.currency,
      });

      const list = await client.GET('/api/partner/v1/orders', { params: { query: {} } });
      expect(list.response.status).toBe(200);
      expect(list.data).toEqual({ data: [o], next_cursor: null });

      // Sold: no longer available anywhere.
      const availability = await client.GET('/api/partner/v1/availability', {
        params: { query: { domain: hit.domain } },
      });
      expect(availability.data!.available).toBe(false);
      const again = await client.GET('/api/partner/v1/domains/search', { params: { query: { q: hit.domain } } });
      expect(again.data!.results.map((x) => x.domain)).not.toContain(hit.domain);
    });

    it('an order without a quote at the listing price, with only the required members', async () => {
      const d = await take(h, cred);
      const client = partnerClient(h, cred);
      // No Idempotency-Key given: the client adds one itself.
      const r = await client.POST('/api/partner/v1/orders', {
        body: { domain: d.domain, expected_price: d.price, currency: d.currency, buyer: { email: 'a@example.com' } },
      } as never);
      expect(r.response.status, JSON.stringify(r.error)).toBe(201);
      expect(r.data).toMatchObject({
        quote_id: null,
        external_payment_ref: null,
        sale_price_cents: d.price,
        buyer: { email: 'a@example.com' },
      });
    });

    it('queries with reserved and non-ASCII characters, signed by the client, are accepted', async () => {
      const client = partnerClient(h, cred, { retry: false });
      for (const q of ['coffee beans', 'tea & coffee+milk', "it's (fresh)!*", 'café crème', 'a=b;c/d?e', '🍵 matcha']) {
        const r = await client.GET('/api/partner/v1/domains/search', { params: { query: { q } } });
        expect(r.response.status, `${q}: ${JSON.stringify(r.error)}`).toBe(200);
        expect(r.data!.q).toBe(q);
      }
    });

    it('a hand-signed raw query: "+" is a literal plus, order and repeated spelling follow the canonical form', async () => {
      for (const raw of ['q=tea+coffee', 'q=%74ea%20coffee', 'q=caf%C3%A9', "q=it's*"]) {
        const nonce = randomUUID();
        const timestamp = String(nowSeconds(h));
        const path = `${V1}/domains/search`;
        const signature = sign({
          secret: cred.secret,
          method: 'GET',
          path,
          query: raw,
          timestamp,
          nonce,
          body: Buffer.alloc(0),
        });
        // The canonical query is what is signed: signing the canonical form is the same signature.
        expect(
          sign({
            secret: cred.secret,
            method: 'GET',
            path,
            query: canonicalQuery(raw),
            timestamp,
            nonce,
            body: Buffer.alloc(0),
          }),
        ).toBe(signature);
        const r = await toReply(
          await fetch(`${h.baseUrl}${path}?${raw}`, {
            headers: {
              [HEADERS.keyId]: cred.key_id,
              [HEADERS.timestamp]: timestamp,
              [HEADERS.nonce]: nonce,
              [HEADERS.signature]: signature,
            },
          }),
        );
        expect(r.status, `${raw}: ${r.text}`).toBe(200);
        if (raw === 'q=tea+coffee') expect(r.body.q).toBe('tea+coffee');
      }
    });
  });

  describe('GET /orders', () => {
    let partner: Credential;
    let all: any[];

    beforeAll(async () => {
      partner = await h.mint({ rate_limits: HIGH });
      all = [];
      // Nine orders: three at each of three instants (ties are broken by public_id).
      for (let instant = 0; instant < 3; instant++) {
        for (let i = 0; i < 3; i++) all.push(await createOrder(h, partner, await take(h, partner)));
        h.clock.advance(1500);
      }
      await admin(all[1].public_id, 'start-transfer');
      await admin(all[4].public_id, 'start-transfer');
      await admin(all[5].public_id, 'hold');
      await admin(all[7].public_id, 'refund');
      all = await Promise.all(all.map((o) => getOrder(partner, o.public_id).then(({ timeline: _t, ...x }) => x)));
    });

    const newestFirst = (orders: any[]) =>
      [...orders].sort(
        (a, b) =>
          Date.parse(b.created_at) - Date.parse(a.created_at) ||
          (a.public_id < b.public_id ? 1 : a.public_id > b.public_id ? -1 : 0),
      );

    async function walk(query: string, limit: number) {
      const ids: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const r = await signedRequest(h, partner, {
          path: `${V1}/orders`,
          query: `${query}${query ? '&' : ''}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        });
        expect(r.status, r.text).toBe(200);
        expect(r.body.data.length).toBeLessThanOrEqual(limit);
        ids.push(...r.body.data.map((o: { public_id: string }) => o.public_id));
        cursor = r.body.next_cursor;
        if (cursor !== null) expect(r.body.data).toHaveLength(limit);
        pages++;
        expect(pages).toBeLessThan(50);
      } while (cursor !== null);
      return ids;
    }

    it('lists every order newest first (created_at, then public_id)', async () => {
      const r = await signedRequest(h, partner, { path: `${V1}/orders` });
      expect(r.status).toBe(200);
      expect(r.body.next_cursor).toBeNull();
      expect(r.body.data).toEqual(newestFirst(all));
    });

    it.each([1, 2, 4, 9, 10])(
      'a cursor walk with limit=%i covers every order exactly once, in order',
      async (limit) => {
        const ids = await walk('', limit);
        expect(ids).toEqual(newestFirst(all).map((o) => o.public_id));
      },
    );

    it('a walk sees every order that existed throughout it exactly once, even as new ones arrive', async () => {
      const before = newestFirst(all).map((o) => o.public_id);
      const first = await signedRequest(h, partner, { path: `${V1}/orders`, query: 'limit=3' });
      const seen: string[] = first.body.data.map((o: { public_id: string }) => o.public_id);
      let cursor: string | null = first.body.next_cursor;
      const added = await createOrder(h, partner, await take(h, partner));
      while (cursor) {
        const r = await signedRequest(h, partner, {
          path: `${V1}/orders`,
          query: `limit=3&cursor=${encodeURIComponent(cursor)}`,
        });
        seen.push(...r.body.data.map((o: { public_id: string }) => o.public_id));
        cursor = r.body.next_cursor;
      }
      expect(new Set(seen).size).toBe(seen.length);
      for (const id of before) expect(seen).toContain(id);
      // Leave the fixture as it was for the other tests.
      expect((await admin(added.public_id, 'cancel')).status).toBe(200);
      all.push((({ timeline: _t, ...x }) => x)(await getOrder(partner, added.public_id)));
    });

    it('filters by status and domain, also across pages', async () => {
      for (const status of [
        'EXTERNALLY_PAID',
        'TRANSFER_IN_PROGRESS',
        'MANUAL_REVIEW',
        'REFUNDED',
        'TRANSFER_COMPLETED',
      ]) {
        const expected = newestFirst(all.filter((o) => o.status === status)).map((o) => o.public_id);
        expect(await walk(`status=${status}`, 1)).toEqual(expected);
      }
      const one = all[4];
      const r = await signedRequest(h, partner, { path: `${V1}/orders`, query: `domain=${one.domain}` });
      expect(r.body.data.map((o: { public_id: string }) => o.public_id)).toEqual([one.public_id]);
      const both = await signedRequest(h, partner, {
        path: `${V1}/orders`,
        query: `domain=${one.domain}&status=EXTERNALLY_PAID`,
      });
      expect(both.body.data).toEqual([]);
      const none = await signedRequest(h, partner, { path: `${V1}/orders`, query: 'domain=unlisted-example.com' });
      expect(none.body).toEqual({ data: [], next_cursor: null });
    });

    it('from is inclusive and to exclusive, as date-times or full dates', async () => {
      const instants = [...new Set(all.map((o) => o.created_at as string))].sort();
      const middle = instants[1]!;
      const atOrAfter = all.filter((o) => Date.parse(o.created_at) >= Date.parse(middle));
      const before = all.filter((o) => Date.parse(o.created_at) < Date.parse(middle));
      expect(await walk(`from=${encodeURIComponent(middle)}`, 2)).toEqual(
        newestFirst(atOrAfter).map((o) => o.public_id),
      );
      expect(await walk(`to=${encodeURIComponent(middle)}`, 2)).toEqual(newestFirst(before).map((o) => o.public_id));
      const window = all.filter((o) => o.created_at === middle);
      const next = new Date(Date.parse(middle) + 1).toISOString();
      expect(await walk(`from=${encodeURIComponent(middle)}&to=${encodeURIComponent(next)}`, 1)).toEqual(
        newestFirst(window).map((o) => o.public_id),
      );
      // Full dates are midnight UTC of that day.
      const day = instants[0]!.slice(0, 10);
      const dayAfter = new Date(Date.parse(`${day}T00:00:00Z`) + 2 * 86_400_000).toISOString().slice(0, 10);
      expect(await walk(`from=${day}&to=${dayAfter}`, 4)).toHaveLength(all.length);
      expect(await walk(`to=${day}`, 4)).toEqual([]);
      expect(await walk(`from=${dayAfter}`, 4)).toEqual([]);
    });
  });

  describe('operator moves (the admin contract’s x-transitions)', () => {
    const paths = pathsFromRecorded();
    // Statuses a partner-collected order reaches through the order endpoints and operator moves.
    // PAID (service-collected, hosted checkout) and SETTLED (settlement run) come from elsewhere.
    const reachable = [...paths.keys()];

    it('the contract’s moves reach the statuses a partner-collected order can have', () => {
      expect(reachable.sort()).toEqual([
        'CANCELLED',
        'EXTERNALLY_PAID',
        'MANUAL_REVIEW',
        'REFUNDED',
        'TRANSFER_COMPLETED',
        'TRANSFER_IN_PROGRESS',
      ]);
    });

    /** A fresh order of `partner` brought to `status` by the moves the contract allows. */
    async function orderIn(partner: Credential, status: string) {
      const order = await createOrder(h, partner, await take(h, partner));
      for (const action of paths.get(status)!) expect((await admin(order.public_id, action)).status).toBe(200);
      return order;
    }

    const cases = Object.entries(ORDER_TRANSITIONS).flatMap(([action, t]) =>
      reachable.map((from) => ({ action, from, allowed: t.from.includes(from), t })),
    );

    it.each(cases.filter((c) => c.allowed))(
      '$action from $from: status, timeline and events written',
      async ({ action, from, t }) => {
        const partner = await h.mint({ rate_limits: HIGH });
        const order = await orderIn(partner, from);
        const before = await getOrder(partner, order.public_id);
        const eventsBefore = await events(partner);
        const reason = `operator ${action} ${randomUUID().slice(0, 8)}`;
        const r = await admin(order.public_id, action, { reason });
        expect(r.status, r.text).toBe(200);
        const to = targetOf(t);
        expect(r.body.status).toBe(to);
        expect(r.body.public_id).toBe(order.public_id);
        expect(r.body.partner_id).toBe(partner.partner_id);
        expect(r.body.payment_model).toBe(PAYMENT_MODEL);

        // Exactly the events of the move, in the history, with the order as it now is.
        const written = (await events(partner)).slice(eventsBefore.length);
        expect(written.map((e) => e.type)).toEqual([t.event, ...t['also-writes'].map((w) => w.event)]);
        for (const e of written) {
          expect(e.data.order).toEqual({
            public_id: order.public_id,
            domain: order.domain,
            status: to,
            sale_price_cents: order.sale_price_cents,
            currency: order.currency,
          });
          expect(e.partner_id).toBe(partner.partner_id);
        }

        // One new timeline entry naming the move's event, with the reason as its note.
        const after = await getOrder(partner, order.public_id);
        expect(after.status).toBe(to);
        expect(after.timeline).toHaveLength(before.timeline.length + 1);
        expect(after.timeline.slice(0, -1)).toEqual(before.timeline);
        expect(after.timeline.at(-1)).toEqual({
          status: to,
          event_type: t.event,
          event_id: written[0].id,
          at: expect.stringMatching(RFC3339_Z),
          note: reason,
        });
        expect(r.body.timeline).toEqual(after.timeline);
        expect(Date.parse(after.updated_at)).toBeGreaterThanOrEqual(Date.parse(before.updated_at));
      },
    );

    it.each(cases.filter((c) => !c.allowed))(
      '$action from $from is 409 invalid_state and changes nothing',
      async ({ action, from }) => {
        const partner = await h.mint({ rate_limits: HIGH });
        const order = await orderIn(partner, from);
        const before = await getOrder(partner, order.public_id);
        const eventsBefore = await events(partner);
        const r = await admin(order.public_id, action);
        expectError(r, 'invalid_state');
        expect(r.body.message).toContain(from);
        expect(await getOrder(partner, order.public_id)).toEqual(before);
        expect(await events(partner)).toEqual(eventsBefore);
      },
    );

    it('clear-hold returns a held order to the paid status it was held from', async () => {
      const order = await orderIn(cred, 'MANUAL_REVIEW');
      const r = await admin(order.public_id, 'clear-hold');
      expect(r.body.status).toBe(targetOf(ORDER_TRANSITIONS['clear-hold']!));
      expect(r.body.status).toBe('EXTERNALLY_PAID');
      // And then the transfer may start.
      expect((await admin(order.public_id, 'start-transfer')).body.status).toBe('TRANSFER_IN_PROGRESS');
    });

    it('an unknown order is 404, an unknown action is 400 or 404', async () => {
      expectError(await admin('ord_doesnotexist00', 'hold'), 'not_found');
      const order = await createOrder(h, cred, await take(h, cred));
      const r = await admin(order.public_id, 'teleport');
      expect([400, 404]).toContain(r.status);
      expectError(r, r.body.code);
      expect((await getOrder(cred, order.public_id)).status).toBe('EXTERNALLY_PAID');
    });

    it('refund and cancel put the domain back on sale', async () => {
      for (const action of ['refund', 'cancel']) {
        const d = await take(h, cred);
        const order = await createOrder(h, cred, d);
        expect((await signedRequest(h, cred, { path: `${V1}/pricing`, query: `domain=${d.domain}` })).status).toBe(404);
        expect((await admin(order.public_id, action)).status).toBe(200);
        const pricing = await signedRequest(h, cred, { path: `${V1}/pricing`, query: `domain=${d.domain}` });
        expect(pricing.status, pricing.text).toBe(200);
        expect(pricing.body.price_cents).toBe(d.price);
        const other = await h.mint({ rate_limits: HIGH });
        expect((await createOrder(h, other, d)).status).toBe('EXTERNALLY_PAID');
      }
    });

    it('moves are dated in the partner’s business time (its test clock)', async () => {
      const partner = await h.mint({ rate_limits: HIGH });
      const order = await createOrder(h, partner, await take(h, partner));
      const day = 86_400;
      expect((await h.admin(`/partners/${partner.partner_id}/clock/advance`, { seconds: day })).status).toBe(200);
      await admin(order.public_id, 'start-transfer');
      const detail = await getOrder(partner, order.public_id);
      const shift = Date.parse(detail.timeline[1].at) - Date.parse(detail.timeline[0].at);
      expect(shift).toBeGreaterThanOrEqual(day * 1000);
      expect(shift).toBeLessThan(day * 1000 + 60_000);
    });
  });

  describe('partner refunds (POST /refunds)', () => {
    const paths = pathsFromRecorded();
    // Partner-collected orders before TRANSFER_COMPLETED (the operation's description).
    const refundable = ['EXTERNALLY_PAID', 'MANUAL_REVIEW', 'TRANSFER_IN_PROGRESS'];
    const notRefundable = ['TRANSFER_COMPLETED', 'REFUNDED', 'CANCELLED'];

    async function orderIn(partner: Credential, status: string) {
      const order = await createOrder(h, partner, await take(h, partner));
      for (const action of paths.get(status)!) expect((await admin(order.public_id, action)).status).toBe(200);
      return order;
    }

    it.each(refundable)('from %s: REFUNDED, the reason as note, order.refunded written', async (status) => {
      const partner = await h.mint({ rate_limits: HIGH });
      const order = await orderIn(partner, status);
      const before = await getOrder(partner, order.public_id);
      const eventsBefore = await events(partner);
      const client = partnerClient(h, partner);
      const r = await client.POST('/api/partner/v1/refunds', {
        body: { public_id: order.public_id, reason: 'Buyer cancelled the purchase' },
      });
      expect(r.response.status, JSON.stringify(r.error)).toBe(200);
      expect(r.data!.status).toBe('REFUNDED');
      expect(r.data!.public_id).toBe(order.public_id);
      const written = (await events(partner)).slice(eventsBefore.length);
      expect(written.map((e) => e.type)).toEqual(['order.refunded']);
      expect(written[0].data.order.status).toBe('REFUNDED');
      const after = await getOrder(partner, order.public_id);
      expect(after.timeline).toHaveLength(before.timeline.length + 1);
      expect(after.timeline.at(-1)).toEqual({
        status: 'REFUNDED',
        event_type: 'order.refunded',
        event_id: written[0].id,
        at: expect.stringMatching(RFC3339_Z),
        note: 'Buyer cancelled the purchase',
      });
      expect(r.data!.timeline).toEqual(after.timeline);
    });

    it.each(notRefundable)('from %s: 409 invalid_state naming the status, nothing changes', async (status) => {
      const partner = await h.mint({ rate_limits: HIGH });
      const order = await orderIn(partner, status);
      const before = await getOrder(partner, order.public_id);
      const eventsBefore = await events(partner);
      const r = await signedRequest(h, partner, {
        method: 'POST',
        path: `${V1}/refunds`,
        body: { public_id: order.public_id },
      });
      expectError(r, 'invalid_state');
      expectRateLimitHeaders(r);
      expect(r.body.message).toContain(status);
      expect(await getOrder(partner, order.public_id)).toEqual(before);
      expect(await events(partner)).toEqual(eventsBefore);
    });

    it('a refund without a reason has a null note; a second refund is invalid_state', async () => {
      const order = await createOrder(h, cred, await take(h, cred));
      const r = await signedRequest(h, cred, {
        method: 'POST',
        path: `${V1}/refunds`,
        body: { public_id: order.public_id },
      });
      expect(r.status, r.text).toBe(200);
      expect(r.body.timeline.at(-1).note).toBeNull();
      const again = await signedRequest(h, cred, {
        method: 'POST',
        path: `${V1}/refunds`,
        body: { public_id: order.public_id },
      });
      expectError(again, 'invalid_state');
      expect(again.body.message).toContain('REFUNDED');
    });

    it('an unknown order is 404, a malformed body 400', async () => {
      expectError(
        await signedRequest(h, cred, {
          method: 'POST',
          path: `${V1}/refunds`,
          body: { public_id: 'ord_doesnotexist00' },
        }),
        'not_found',
      );
      expectError(
        await signedRequest(h, cred, { method: 'POST', path: `${V1}/refunds`, body: { public_id: 'nope' } }),
        'validation_error',
      );
      expectError(
        await signedRequest(h, cred, { method: 'POST', path: `${V1}/refunds`, body: {} }),
        'validation_error',
      );
    });
  });

  describe('quotes and the test clock', () => {
    const advance = (partnerId: string, seconds: number) =>
      h.admin(`/partners/${partnerId}/clock/advance`, { seconds });

    it('a quote holds for 10 minutes of the partner’s business time, then quote_expired', async () => {
      const partner = await h.mint({ rate_limits: HIGH });
      const client = partnerClient(h, partner);
      const d1 = await take(h, partner);
      const d2 = await take(h, partner);
      const q1 = (await client.POST('/api/partner/v1/quotes', { body: { domain: d1.domain } })).data!;
      const q2 = (await client.POST('/api/partner/v1/quotes', { body: { domain: d2.domain } })).data!;

      const moved = await advance(partner.partner_id, 599);
      expect(moved.status).toBe(200);
      const clock = (await moved.json()) as { business_time: string };
      expect(Math.abs(Date.parse(clock.business_time) - (h.clock.now() + 599_000))).toBeLessThan(1000);
      // Still inside the window: the quote is honoured (and the signature clock is unchanged).
      const ok = await client.POST('/api/partner/v1/orders', {
        body: orderBody(d1, { quote_id: q1.quote_id, expected_price: q1.price_cents }) as never,
        params: { header: { 'Idempotency-Key': randomUUID() } },
      });
      expect(ok.response.status, JSON.stringify(ok.error)).toBe(201);
      // Orders are dated in business time too.
      expect(Math.abs(Date.parse(ok.data!.created_at) - Date.parse(clock.business_time))).toBeLessThan(1000);

      expect((await advance(partner.partner_id, 2)).status).toBe(200);
      const expired = await signedRequest(h, partner, {
        method: 'POST',
        path: `${V1}/orders`,
        body: orderBody(d2, { quote_id: q2.quote_id }),
        idempotencyKey: randomUUID(),
      });
      expectError(expired, 'quote_expired');
      // Without the quote the listing price still sells it.
      expect((await createOrder(h, partner, d2)).status).toBe('EXTERNALLY_PAID');
    });

    it('partners quoting one domain at the same instant: exactly one reserves it, every other gets 409 domain_reserved', async () => {
      const partners = await Promise.all(Array.from({ length: 6 }, () => h.mint({ rate_limits: HIGH })));
      for (let round = 0; round < 3; round++) {
        const d = await take(h, partners[0]!);
        const answers = await Promise.all(
          partners.map((p) =>
            signedRequest(h, p, { method: 'POST', path: `${V1}/quotes`, body: { domain: d.domain } }),
          ),
        );
        const statuses = answers.map((a) => a.status).sort();
        expect(statuses, answers.map((a) => a.text).join('\n')).toEqual([200, 409, 409, 409, 409, 409]);
        for (const refused of answers.filter((a) => a.status === 409)) expectError(refused, 'domain_reserved');
      }
    });

    it('a quote and another partner’s order at the same instant: one is decided first, never both (200 and 409 domain_reserved, or 404 and 201)', async () => {
      const quoter = await h.mint({ rate_limits: HIGH });
      const buyer = await h.mint({ rate_limits: HIGH });
      for (let round = 0; round < 12; round++) {
        const d = await take(h, buyer);
        const [quote, order] = await Promise.all([
          signedRequest(h, quoter, { method: 'POST', path: `${V1}/quotes`, body: { domain: d.domain } }),
          signedRequest(h, buyer, {
            method: 'POST',
            path: `${V1}/orders`,
            body: orderBody(d),
            idempotencyKey: randomUUID(),
          }),
        ]);
        const pair = `${quote.status}/${order.status}`;
        expect(['200/409', '404/201'], `${quote.text}\n${order.text}`).toContain(pair);
        if (order.status === 409) expectError(order, 'domain_reserved');
        if (quote.status === 404) expectError(quote, 'not_found');
      }
    });

    it('an expired quote no longer reserves the domain for the quoting partner', async () => {
      const holder = await h.mint({ rate_limits: HIGH });
      const other = await h.mint({ rate_limits: HIGH });
      const d = await take(h, holder);
      expect(
        (await signedRequest(h, holder, { method: 'POST', path: `${V1}/quotes`, body: { domain: d.domain } })).status,
      ).toBe(200);
      expectError(
        await signedRequest(h, other, { method: 'POST', path: `${V1}/quotes`, body: { domain: d.domain } }),
        'domain_reserved',
      );
      const detail = await signedRequest(h, other, { path: `${V1}/domains/${d.domain}` });
      expect(detail.body.available).toBe(false);
      const own = await signedRequest(h, holder, { path: `${V1}/domains/${d.domain}` });
      expect(own.body.available).toBe(true);
      expect((await advance(holder.partner_id, 601)).status).toBe(200);
      const q = await signedRequest(h, other, { method: 'POST', path: `${V1}/quotes`, body: { domain: d.domain } });
      expect(q.status, q.text).toBe(200);
    });

    // x-quote-reservation: a reservation lasts at most 10 minutes from its first quote, and one
    // that ended without an order cools down for 10 minutes before the same partner may reserve
    // the domain again (probe M2: re-quoting moved the end forward without limit).
    const quoteOf = (c: Credential, domain: string) =>
      signedRequest(h, c, { method: 'POST', path: `${V1}/quotes`, body: { domain } });

    it('a quote while the reservation is live keeps its end: another partner may quote once it has passed', async () => {
      const holder = await h.mint({ rate_limits: HIGH });
      const other = await h.mint({ rate_limits: HIGH });
      const d = await take(h, holder);
      const first = await quoteOf(holder, d.domain);
      expect(first.status, first.text).toBe(200);
      for (const seconds of [300, 299]) {
        expect((await advance(holder.partner_id, seconds)).status).toBe(200);
        const again = await quoteOf(holder, d.domain);
        expect(again.status, again.text).toBe(200);
        expect(again.body.quote_id).not.toBe(first.body.quote_id);
        expect(again.body.expires_at).toBe(first.body.expires_at);
        // The fresh quote is good until the reservation's end, not beyond it.
        expectError(await quoteOf(other, d.domain), 'domain_reserved');
      }
      // 600 s after the first quote the reservation is over, however often it was re-quoted.
      expect((await advance(holder.partner_id, 1)).status).toBe(200);
      const taken = await quoteOf(other, d.domain);
      expect(taken.status, taken.text).toBe(200);
    });

    it('a reservation that ended without an order cools down 10 minutes for its partner only', async () => {
      const holder = await h.mint({ rate_limits: HIGH });
      const other = await h.mint({ rate_limits: HIGH });
      const d = await take(h, holder);
      const first = await quoteOf(holder, d.domain);
      expect(first.status, first.text).toBe(200);
      expect((await advance(holder.partner_id, 660)).status).toBe(200);
      const cooling = await quoteOf(holder, d.domain);
      expectError(cooling, 'quote_cooldown');
      const end = Date.parse(first.body.expires_at);
      const again = new Date(end + 600_000).toISOString().replace('.000Z', 'Z');
      expect(cooling.body.message).toContain(`you may quote it again from ${again}`);
      const retryAfter = Number(cooling.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(539);
      expect(retryAfter).toBeLessThanOrEqual(541);
      // The cool-down stops quotes only: an order at the listing price is still accepted.
      const bought = await take(h, holder);
      expect((await quoteOf(holder, bought.domain)).status).toBe(200);
      expect((await advance(holder.partner_id, 601)).status).toBe(200);
      expectError(await quoteOf(holder, bought.domain), 'quote_cooldown');
      expect((await createOrder(h, holder, bought)).status).toBe('EXTERNALLY_PAID');
      // Another partner may quote the domain the holder cannot.
      const others = await quoteOf(other, d.domain);
      expect(others.status, others.text).toBe(200);
    });

    it('after the cool-down the partner may reserve the domain again, for a full 10 minutes', async () => {
      const holder = await h.mint({ rate_limits: HIGH });
      const d = await take(h, holder);
      expect((await quoteOf(holder, d.domain)).status).toBe(200);
      expect((await advance(holder.partner_id, 1199)).status).toBe(200);
      expectError(await quoteOf(holder, d.domain), 'quote_cooldown');
      expect((await advance(holder.partner_id, 1)).status).toBe(200);
      const renewed = await quoteOf(holder, d.domain);
      expect(renewed.status, renewed.text).toBe(200);
      const business = h.clock.now() + 1200_000;
      expect(Math.abs(Date.parse(renewed.body.expires_at) - (business + 600_000))).toBeLessThan(1000);
    });

    it('a reservation that ended with an order of its partner does not cool down (the domain back on sale)', async () => {
      const holder = await h.mint({ rate_limits: HIGH });
      const d = await take(h, holder);
      const q = await quoteOf(holder, d.domain);
      expect(q.status, q.text).toBe(200);
      const order = await createOrder(h, holder, d, { quote_id: q.body.quote_id });
      const refund = await signedRequest(h, holder, {
        method: 'POST',
        path: `${V1}/refunds`,
        body: { public_id: order.public_id },
      });
      expect(refund.status, refund.text).toBe(200);
      expect((await advance(holder.partner_id, 601)).status).toBe(200);
      const again = await quoteOf(holder, d.domain);
      expect(again.status, again.text).toBe(200);
    });

    it('only sandbox partners have a test clock; an unknown partner is 404', async () => {
      const live = await h.mint({ environment: 'live', scopes: ['buy'], approved: true });
      expectError(await toReply(await advance(live.partner_id, 60)), 'invalid_state');
      expectError(await toReply(await advance('ptn_doesnotexist0000', 60)), 'not_found');
      expectError(await toReply(await advance(cred.partner_id, 0)), 'validation_error');
    });
  });
});
