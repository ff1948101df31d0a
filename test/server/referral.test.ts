// Referral end to end: links and their statistics, the tracked URL /r/{code}, attribution of a
// hosted-checkout sale within 30 days of a click (and not after), the commission ledger through
// accrued → pending → paid_out and reversed on refund, the reports, and the running balance as a
// property over random click/sale/refund/settle/payout sequences.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commissionCents, COMMISSION_DEFAULTS_BPS } from '../../server/domain/money.ts';
import { markPending, recordPaidOut } from '../../server/partner/referral-ledger.ts';
import { freshLoopbackAddress, requestFrom } from '../support/from-address.ts';
import { startHarness, type Harness } from './harness.ts';
import { sessionBody } from './support/checkout.ts';
import {
  databases,
  domainSource,
  expectError,
  INVENTORY_SIZE,
  signedRequest,
  toReply,
  type Credential,
} from './support/http.ts';

const V1 = '/api/partner/v1';
const HIGH = { search: 10_000, write: 10_000, reporting: 10_000 };
const SCOPES = ['search', 'buy', 'embed', 'refer', 'report'];
const DAY = 86_400;
const CARD = { card_number: '4242424242424242', exp_month: '12', exp_year: '2099', cvc: '123' };
const EFFECT: Record<string, number> = { accrued: 1, pending: 0, paid_out: -1, reversed: -1 };

describe.each(databases())('referral ($name)', ({ databaseUrl }) => {
  let h: Harness;
  const take = domainSource();

  beforeAll(async () => {
    h = await startHarness({ databaseUrl, inventorySize: INVENTORY_SIZE });
  });
  afterAll(async () => {
    await h?.close();
  });

  const affiliate = () => h.mint({ scopes: SCOPES, affiliate: true, rate_limits: HIGH });
  const get = (c: Credential, path: string, query = '') => signedRequest(h, c, { path: `${V1}${path}`, query });
  const createLink = (c: Credential, body: unknown) =>
    signedRequest(h, c, { method: 'POST', path: `${V1}/links`, body });
  const advance = async (c: Credential, seconds: number) =>
    expect((await h.admin(`/partners/${c.partner_id}/clock/advance`, { seconds })).status).toBe(200);
  const codeOf = (link: { url: string }) => new URL(link.url).pathname.split('/').pop()!;

  /**
   * Follows a tracked link as a browser would; returns the redirect and the attribution cookie.
   * Every browser here is a buyer of its own, from an address of its own (see freshLoopbackAddress).
   */
  const follow = async (code: string, query = '') => {
    const res = await requestFrom(h.baseUrl, {
      method: 'GET',
      path: `/r/${code}${query}`,
      address: freshLoopbackAddress(),
    });
    const cookie = [res.headers['set-cookie'] ?? []].flat().join(', ');
    return {
      status: res.status,
      location: res.headers.location ?? null,
      cookie,
      click: /ds_ref=([^;]+)/.exec(cookie)?.[1],
    };
  };

  /** A hosted-checkout sale by a buyer who carries `click` in the ds_ref cookie (or none). */
  const sell = async (c: Credential, click?: string) => {
    const d = await take(h, c);
    const s = await signedRequest(h, c, { method: 'POST', path: `${V1}/checkout-session`, body: sessionBody(d) });
    expect(s.status, s.text).toBe(201);
    const pt = new URL(s.body.checkout_url).searchParams.get('pt')!;
    const address = freshLoopbackAddress();
    const headers: Record<string, string> = click ? { cookie: `ds_ref=${click}` } : {};
    const page = await requestFrom(h.baseUrl, { method: 'GET', path: `/checkout?pt=${pt}`, address, headers });
    expect(page.status, page.text).toBe(200);
    const form = new URLSearchParams({ pt, ...CARD }).toString();
    const paid = await requestFrom(h.baseUrl, {
      method: 'POST',
      path: '/checkout/pay',
      address,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'content-length': Buffer.byteLength(form),
        ...headers,
      },
      body: form,
    });
    expect(paid.status, paid.text).toBe(303);
    return { d, publicId: new URL(paid.headers.location!, h.baseUrl).searchParams.get('public_id')! };
  };

  const ledger = async (c: Credential, query = 'limit=200') => {
    const r = await get(c, '/me/commissions', query);
    expect(r.status, r.text).toBe(200);
    return r.body as {
      data: Array<{
        status: string;
        amount_cents: number;
        balance_cents: number;
        public_id: string;
        payout_id: string | null;
      }>;
      balance_cents: number;
      next_cursor: string | null;
    };
  };

  it('refuses every referral operation without an affiliate account (403 forbidden, saying so)', async () => {
    const plain = await h.mint({ scopes: SCOPES, rate_limits: HIGH });
    const replies = [
      await createLink(plain, { type: 'generic' }),
      await get(plain, '/links'),
      await get(plain, '/me/clicks'),
      await get(plain, '/me/sales'),
      await get(plain, '/me/commissions'),
      await get(plain, '/me/payouts'),
      await get(plain, '/analytics'),
    ];
    for (const r of replies) {
      expectError(r, 'forbidden');
      expect(r.body.message).toMatch(/affiliate account/);
    }
    const noScope = await h.mint({ scopes: ['search'], affiliate: true, rate_limits: HIGH });
    expectError(await createLink(noScope, { type: 'generic' }), 'forbidden');
    expectError(await get(noScope, '/me/clicks'), 'forbidden');
  });

  it('creates generic, domain and product links; unknown domain or product is 404; bad bodies 400', async () => {
    const c = await affiliate();
    const d = await take(h, c);
    // A second apart, so newest-first is unambiguous.
    const generic = await createLink(c, { type: 'generic' });
    h.clock.advance(1000);
    expect(generic.status, generic.text).toBe(201);
    expect(generic.body).toMatchObject({ type: 'generic', domain: null, product: null });
    expect(generic.body.url).toMatch(new RegExp(`^${h.baseUrl}/r/[A-Za-z0-9_-]+$`));
    const domain = await createLink(c, { type: 'domain', domain: d.domain });
    h.clock.advance(1000);
    expect(domain.status, domain.text).toBe(201);
    expect(domain.body).toMatchObject({ type: 'domain', domain: d.domain, product: null });
    const product = await createLink(c, { type: 'product', product: 'brokerage' });
    expect(product.status, product.text).toBe(201);
    expectError(await createLink(c, { type: 'domain', domain: 'nowhere-listed-zz.com' }), 'not_found');
    expectError(await createLink(c, { type: 'product', product: 'no-such-product' }), 'not_found');
    expectError(await createLink(c, { type: 'generic', domain: d.domain }), 'validation_error');
    expectError(await createLink(c, { type: 'domain' }), 'validation_error');
    // Every operation names a body member from the body down (`/body/…`), the discriminated
    // link request included: the member the caller got wrong, whichever branch it chose.
    const unknownProduct = await createLink(c, { type: 'generic', product: 'brokerage' });
    expectError(unknownProduct, 'validation_error');
    const polluted = await createLink(c, JSON.parse('{"type":"domain","domain":"a.com","__proto__":{"x":1}}'));
    expectError(polluted, 'validation_error');
    for (const refused of [unknownProduct, polluted])
      for (const detail of refused.body.details as Array<{ path: string }>)
        expect(detail.path, refused.text).toMatch(/^\/body(\/|$)/);
    expect(unknownProduct.body.message).toMatch(/\/body\/product\b/);

    // Redirect targets: home page, the domain's page, the product page; query passed on.
    expect(await follow(codeOf(generic.body), '?utm_source=news')).toMatchObject({
      status: 302,
      location: `${h.baseUrl}/?utm_source=news`,
    });
    expect((await follow(codeOf(domain.body))).location).toBe(`${h.baseUrl}/domains/${d.domain}`);
    const p = await follow(codeOf(product.body));
    expect(p.location).toBe(`${h.baseUrl}/products/brokerage`);
    expect(p.cookie).toMatch(/^ds_ref=clk_[0-9A-Za-z]+; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax$/);
    const missing = await fetch(`${h.baseUrl}/r/NoSuchCode`, { redirect: 'manual' });
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('<html lang="en">');
    expectError(
      await toReply(await fetch(`${h.baseUrl}/r/NoSuchCode`, { headers: { accept: 'application/json' } })),
      'not_found',
    );

    // Listing: newest first, with statistics; type filter; cursor pages.
    const all = await get(c, '/links');
    expect(all.status, all.text).toBe(200);
    expect(all.body.data.map((l: { link_id: string }) => l.link_id)).toEqual([
      product.body.link_id,
      domain.body.link_id,
      generic.body.link_id,
    ]);
    expect(all.body.data[0].stats).toEqual({
      clicks: 1,
      checkouts_started: 0,
      sales: 0,
      gmv_cents: 0,
      commission_cents: 0,
      currency: 'USD',
    });
    const domainOnly = await get(c, '/links', 'type=domain');
    expect(domainOnly.body.data).toHaveLength(1);
    const first = await get(c, '/links', 'limit=2');
    expect(first.body.data).toHaveLength(2);
    const second = await get(c, '/links', `limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(second.body.data.map((l: { link_id: string }) => l.link_id)).toEqual([generic.body.link_id]);
    expect(second.body.next_cursor).toBeNull();
    expectError(
      await get(c, '/links', `type=generic&cursor=${encodeURIComponent(first.body.next_cursor)}`),
      'invalid_cursor',
    );
  });

  it('attributes a hosted-checkout sale after a click: sales, ledger, link stats, clicks and analytics', async () => {
    const c = await affiliate();
    const link = (await createLink(c, { type: 'generic' })).body;
    const { click } = await follow(codeOf(link));
    expect(click).toMatch(/^clk_/);
    await follow(codeOf(link));
    const { d, publicId } = await sell(c, click);
    const commission = commissionCents(d.price, COMMISSION_DEFAULTS_BPS.referral);

    const sales = await get(c, '/me/sales');
    expect(sales.status, sales.text).toBe(200);
    expect(sales.body.data).toEqual([
      {
        public_id: publicId,
        link_id: link.link_id,
        domain: d.domain,
        buyer: { email: 'j•••@example.org', country: 'US' },
        amount_cents: d.price,
        commission_cents: commission,
        commission_status: 'accrued',
        currency: 'USD',
        sold_at: expect.any(String),
      },
    ]);
    const l = await ledger(c);
    expect(l.data).toMatchObject([
      { status: 'accrued', amount_cents: commission, balance_cents: commission, public_id: publicId, payout_id: null },
    ]);
    expect(l.balance_cents).toBe(commission);

    const links = await get(c, '/links');
    expect(links.body.data[0].stats).toEqual({
      clicks: 2,
      checkouts_started: 1,
      sales: 1,
      gmv_cents: d.price,
      commission_cents: commission,
      currency: 'USD',
    });
    const clicks = await get(c, '/me/clicks');
    expect(clicks.status, clicks.text).toBe(200);
    expect(clicks.body).toMatchObject({
      from: null,
      to: null,
      total_clicks: 2,
      by_link: [{ link_id: link.link_id, clicks: 2 }],
    });
    expect(clicks.body.by_day).toEqual([{ date: new Date(h.clock.now()).toISOString().slice(0, 10), clicks: 2 }]);
    const empty = await get(c, '/me/clicks', 'from=2000-01-01&to=2000-01-02');
    expect(empty.body).toEqual({
      from: '2000-01-01T00:00:00Z',
      to: '2000-01-02T00:00:00Z',
      total_clicks: 0,
      by_link: [],
      by_day: [],
    });
    // The default window ends now, exclusive: let the clock pass the sale.
    h.clock.advance(1000);
    const analytics = await get(c, '/analytics');
    expect(analytics.status, analytics.text).toBe(200);
    expect(analytics.body).toMatchObject({
      clicks: 2,
      checkouts_started: 1,
      sales: 1,
      gmv_cents: d.price,
      commission_cents: commission,
      currency: 'USD',
    });
    expect(Date.parse(analytics.body.to) - Date.parse(analytics.body.from)).toBe(30 * DAY * 1000);

    // A sale without a click, or with another partner's click, is not attributed.
    const other = await affiliate();
    const foreign = await follow(codeOf((await createLink(other, { type: 'generic' })).body));
    await sell(c);
    await sell(c, foreign.click);
    expect((await get(c, '/me/sales')).body.data).toHaveLength(1);
    expect((await get(other, '/me/sales')).body.data).toHaveLength(0);
  });

  it('counts a visit, not a HEAD or a repeat by a browser that carries the link’s cookie within its window', async () => {
    const c = await affiliate();
    const link = (await createLink(c, { type: 'generic' })).body;
    const other = (await createLink(c, { type: 'generic' })).body;
    const clicks = async () => {
      const r = await get(c, '/links');
      expect(r.status, r.text).toBe(200);
      return Object.fromEntries(
        (r.body.data as Array<{ link_id: string; stats: { clicks: number } }>).map((l) => [l.link_id, l.stats.clicks]),
      );
    };
    const visit = async (code: string, init: RequestInit = {}) => {
      const res = await fetch(`${h.baseUrl}/r/${code}`, { redirect: 'manual', ...init });
      return { status: res.status, location: res.headers.get('location'), cookie: res.headers.get('set-cookie') };
    };
    const withCookie = (click: string) => ({ headers: { cookie: `ds_ref=${click}` } });

    // HEAD answers as the GET would, and is no visit (RFC 9110 §9.3.2).
    for (let i = 0; i < 3; i++)
      expect(await visit(codeOf(link), { method: 'HEAD' })).toEqual({
        status: 302,
        location: `${h.baseUrl}/`,
        cookie: null,
      });
    expect((await clicks())[link.link_id]).toBe(0);

    const first = await follow(codeOf(link));
    expect(first.click).toMatch(/^clk_/);
    // The same browser again, within the window: answered alike, not counted, its cookie kept.
    for (let i = 0; i < 3; i++)
      expect(await visit(codeOf(link), withCookie(first.click!))).toEqual({
        status: 302,
        location: `${h.baseUrl}/`,
        cookie: null,
      });
    expect((await clicks())[link.link_id]).toBe(1);

    // A cookie of another link's click, or of none, is a new visit of this link.
    const elsewhere = await follow(codeOf(other));
    const switched = await visit(codeOf(link), withCookie(elsewhere.click!));
    expect(switched.cookie).toMatch(/^ds_ref=clk_/);
    expect((await visit(codeOf(link), withCookie('clk_NoSuchClick000'))).cookie).toMatch(/^ds_ref=clk_/);
    expect(await clicks()).toMatchObject({ [link.link_id]: 3, [other.link_id]: 1 });

    // Past the first click's 30-day window its cookie no longer holds the visit back.
    await advance(c, 30 * DAY + 60);
    expect((await visit(codeOf(link), withCookie(first.click!))).cookie).toMatch(/^ds_ref=clk_/);
    expect((await clicks())[link.link_id]).toBe(4);
  });

  it('attributes within 30 days of the click and not after (test clock)', async () => {
    const c = await affiliate();
    const link = (await createLink(c, { type: 'generic' })).body;
    const { click } = await follow(codeOf(link));
    await advance(c, 30 * DAY - 60);
    const inside = await sell(c, click);
    await advance(c, 120);
    await sell(c, click);
    const sales = (await get(c, '/me/sales')).body.data;
    expect(sales.map((s: { public_id: string }) => s.public_id)).toEqual([inside.publicId]);
  });

  it('reverses the commission on refund; pending at settlement and paid_out with a payout', async () => {
    const c = await affiliate();
    const { click } = await follow(codeOf((await createLink(c, { type: 'generic' })).body));
    const a = await sell(c, click);
    const b = await sell(c, click);
    const ca = commissionCents(a.d.price, COMMISSION_DEFAULTS_BPS.referral);
    const cb = commissionCents(b.d.price, COMMISSION_DEFAULTS_BPS.referral);

    const refund = await toReply(await h.admin(`/orders/${b.publicId}/refund`));
    expect(refund.status, refund.text).toBe(200);
    const at = h.clock.now();
    await h.store.transaction((tx) => markPending(tx, c.partner_id, [a.publicId, b.publicId], at));
    await h.store.db
      .insertInto('payouts')
      .values({
        payout_id: 'po_TESTPAYOUT1',
        partner_id: c.partner_id,
        kind: 'referral_commission',
        amount_cents: ca,
        currency: 'USD',
        paid_at: at,
        created_at: at,
      })
      .execute();
    const paid = await h.store.transaction((tx) =>
      recordPaidOut(tx, c.partner_id, ca, { payoutId: 'po_TESTPAYOUT1', at }),
    );
    expect(paid).toEqual({ paidCents: ca, orderIds: [a.publicId] });

    const l = await ledger(c);
    expect(l.data.map((e) => [e.status, e.public_id, e.amount_cents, e.balance_cents])).toEqual([
      ['accrued', a.publicId, ca, ca],
      ['accrued', b.publicId, cb, ca + cb],
      ['reversed', b.publicId, cb, ca],
      ['pending', a.publicId, ca, ca],
      ['paid_out', a.publicId, ca, 0],
    ]);
    expect(l.data[4]!.payout_id).toBe('po_TESTPAYOUT1');
    expect(l.balance_cents).toBe(0);
    const reversedOnly = await ledger(c, 'status=reversed');
    expect(reversedOnly.data).toMatchObject([{ status: 'reversed', balance_cents: ca }]);
    const page1 = await ledger(c, 'limit=2');
    const page2 = await ledger(c, `limit=2&cursor=${encodeURIComponent(page1.next_cursor!)}`);
    expect(page2.data.map((e) => e.status)).toEqual(['reversed', 'pending']);

    const sales = (await get(c, '/me/sales')).body.data as Array<{ public_id: string; commission_status: string }>;
    expect(Object.fromEntries(sales.map((s) => [s.public_id, s.commission_status]))).toEqual({
      [a.publicId]: 'paid_out',
      [b.publicId]: 'reversed',
    });
    const stats = (await get(c, '/links')).body.data[0].stats;
    expect(stats).toMatchObject({ sales: 1, gmv_cents: a.d.price, commission_cents: ca });
    const payouts = await get(c, '/me/payouts');
    expect(payouts.status, payouts.text).toBe(200);
    expect(payouts.body).toMatchObject({
      data: [{ payout_id: 'po_TESTPAYOUT1', kind: 'referral_commission', amount_cents: ca, currency: 'USD' }],
      next_cursor: null,
      total_paid_cents: ca,
      currency: 'USD',
    });
    h.clock.advance(1000);
    expect((await get(c, '/analytics')).body).toMatchObject({ sales: 1, gmv_cents: a.d.price, commission_cents: ca });
  });

  it('keeps total_paid_cents exact: a payout past 2^53 - 1 in all is refused, and a total past it is never reported rounded', async () => {
    const c = await affiliate();
    const pay = async (amount_cents: number) =>
      toReply(await h.admin('/payouts', { partner_id: c.partner_id, amount_cents, kind: 'referral_commission' }));
    expect((await pay(Number.MAX_SAFE_INTEGER - 1)).status).toBe(201);
    expect((await pay(1)).status).toBe(201);
    const over = await pay(1);
    expectError(over, 'validation_error');
    expect(over.body.details).toEqual([{ path: '/body/amount_cents', message: expect.stringMatching(/total/) }]);
    // Another kind has its own total.
    expect(
      (await toReply(await h.admin('/payouts', { partner_id: c.partner_id, amount_cents: 1, kind: 'brokerage' })))
        .status,
    ).toBe(201);
    const paid = await get(c, '/me/payouts');
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body.total_paid_cents).toBe(Number.MAX_SAFE_INTEGER);

    // Rows written past the operator API's check (an older deployment's): the sum is exact in the
    // store, and a total JSON could only carry rounded (27021597764222977 read as …976) is refused.
    const d = await affiliate();
    const at = h.clock.now();
    await h.store.db
      .insertInto('payouts')
      .values(
        [0, 1, 2].map((i) => ({
          payout_id: `po_BIGTOTAL${i}${d.partner_id.slice(-6)}`,
          partner_id: d.partner_id,
          kind: 'referral_commission' as const,
          amount_cents: Number.MAX_SAFE_INTEGER,
          currency: 'USD',
          paid_at: at + i,
          created_at: at + i,
        })),
      )
      .execute();
    // The store itself refuses to hand out the rounded figure (the answer's `maximum` would also
    // catch it, but only where responses are validated: VALIDATE_RESPONSES may be off).
    await expect(h.store.referral.listPayouts(d.partner_id, {}, 10)).rejects.toThrow(/2\^53/);
    expectError(await get(d, '/me/payouts'), 'internal_error');
  });

  it('through the operator API: the settlement run makes commission pending, a referral payout pays it out', async () => {
    const c = await affiliate();
    const { click } = await follow(codeOf((await createLink(c, { type: 'generic' })).body));
    const a = await sell(c, click);
    const ca = commissionCents(a.d.price, COMMISSION_DEFAULTS_BPS.referral);
    for (const action of ['start-transfer', 'confirm-delivery'])
      expect((await h.admin(`/orders/${a.publicId}/${action}`)).status).toBe(200);
    h.clock.advance(1000);
    const run = await toReply(await h.admin('/settlements/run', {}));
    expect(run.status, run.text).toBe(200);
    expect((await ledger(c)).data.map((e) => e.status)).toEqual(['accrued', 'pending']);
    const payout = await toReply(
      await h.admin('/payouts', { partner_id: c.partner_id, amount_cents: ca, kind: 'referral_commission' }),
    );
    expect(payout.status, payout.text).toBe(201);
    const l = await ledger(c);
    expect(l.data.map((e) => [e.status, e.balance_cents])).toEqual([
      ['accrued', ca],
      ['pending', ca],
      ['paid_out', 0],
    ]);
    expect(l.data[2]!.payout_id).toBe(payout.body.payout_id);
  });

  it('every ledger row carries the running balance: the sum of the entries up to it (property)', async () => {
    type Step =
      | { kind: 'sale'; clicked: boolean }
      | { kind: 'refund'; pick: number }
      | { kind: 'settle'; pick: number }
      | { kind: 'payout'; fraction: number };
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({ kind: fc.constant('sale' as const), clicked: fc.boolean() }),
      fc.record({ kind: fc.constant('refund' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('settle' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('payout' as const), fraction: fc.double({ min: 0, max: 1, noNaN: true }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 5 }), async (steps) => {
        const c = await affiliate();
        const link = (await createLink(c, { type: 'generic' })).body;
        const sold: string[] = [];
        let payouts = 0;
        for (const s of steps) {
          if (s.kind === 'sale')
            sold.push((await sell(c, s.clicked ? (await follow(codeOf(link))).click : undefined)).publicId);
          else if (s.kind === 'refund' && sold.length > 0)
            await h.admin(`/orders/${sold[s.pick % sold.length]}/refund`);
          else if (s.kind === 'settle' && sold.length > 0)
            await h.store.transaction((tx) =>
              markPending(tx, c.partner_id, [sold[s.pick % sold.length]!], h.clock.now()),
            );
          else if (s.kind === 'payout') {
            const pending = (await ledger(c)).balance_cents;
            await h.store.transaction((tx) =>
              recordPaidOut(tx, c.partner_id, Math.floor(pending * s.fraction), {
                payoutId: `po_PROP${payouts++}x${c.partner_id.slice(-6)}`,
                at: h.clock.now(),
              }),
            );
          }
        }
        const l = await ledger(c);
        let sum = 0;
        for (const e of l.data) {
          sum += EFFECT[e.status]! * e.amount_cents;
          expect(e.balance_cents).toBe(sum);
          expect(e.balance_cents).toBeGreaterThanOrEqual(0);
        }
        expect(l.balance_cents).toBe(sum);
      }),
      { numRuns: 6 },
    );
  });
});
