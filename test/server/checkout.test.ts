// Hosted checkout end to end: POST /checkout-session (price checks as for orders), the hosted
// page, payment with the sandbox test cards, cancel, and every token error (tampered, expired on
// the partner's test clock, already paid), as HTML pages and as JSON errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';
import { sessionBody } from './support/checkout.ts';
import {
  databases,
  domainSource,
  expectError,
  INVENTORY_SIZE,
  orderBody,
  signedRequest,
  toReply,
  type Credential,
} from './support/http.ts';

const V1 = '/api/partner/v1';
const HIGH = { search: 10_000, write: 10_000, reporting: 10_000 };
const SCOPES = ['search', 'buy', 'embed'];
const DAY = 86_400;
const CARD = {
  card_number: '4242 4242 4242 4242',
  exp_month: '12',
  exp_year: '2099',
  cvc: '123',
  cardholder_name: 'Ada Buyer',
};

describe.each(databases())('hosted checkout ($name)', ({ databaseUrl }) => {
  let h: Harness;
  let cred: Credential;
  const take = domainSource();

  beforeAll(async () => {
    h = await startHarness({ databaseUrl, inventorySize: INVENTORY_SIZE });
    cred = await h.mint({ scopes: SCOPES, rate_limits: HIGH });
  });
  afterAll(async () => {
    await h?.close();
  });

  const createSession = (c: Credential, body: unknown) =>
    signedRequest(h, c, { method: 'POST', path: `${V1}/checkout-session`, body });
  const newSession = async (c = cred) => {
    const d = await take(h, c);
    const r = await createSession(c, sessionBody(d));
    expect(r.status, r.text).toBe(201);
    return { d, session: r.body, pt: new URL(r.body.checkout_url).searchParams.get('pt')! };
  };
  const page = async (pt: string, headers: Record<string, string> = {}) =>
    toReply(await fetch(`${h.baseUrl}/checkout?pt=${encodeURIComponent(pt)}`, { headers }));
  const post = async (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
    toReply(
      await fetch(`${h.baseUrl}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(fields).toString(),
      }),
    );
  const JSON_ACCEPT = { accept: 'application/json' };
  const advance = async (c: Credential, seconds: number) =>
    expect((await h.admin(`/partners/${c.partner_id}/clock/advance`, { seconds })).status).toBe(200);

  it('creates a session whose checkout_url carries a signed pt and lives 7 days', async () => {
    const { d, session } = await newSession();
    expect(session).toMatchObject({ domain: d.domain, price_cents: d.price, currency: d.currency, quote_id: null });
    expect(session.session_id).toMatch(/^cs_[0-9A-Za-z]{6,40}$/);
    expect(session.checkout_url).toMatch(new RegExp(`^${h.baseUrl}/checkout\\?pt=pt_[A-Za-z0-9_.-]+$`));
    expect(Date.parse(session.expires_at) - Date.parse(session.created_at)).toBe(7 * DAY * 1000);
  });

  it('shows an accessible page without JavaScript: lang, title, labelled inputs, the pay and cancel forms', async () => {
    const { d, pt } = await newSession();
    const r = await page(pt);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('referrer-policy')).toBe('no-referrer');
    expect(r.text).toMatch(/^<!doctype html>\s*<html lang="en">/);
    expect(r.text).toContain(`<title>Checkout - ${d.domain}</title>`);
    expect(r.text).toContain(`<h1>${d.domain}</h1>`);
    expect(r.text).toContain('jane.doe@example.org');
    expect(r.text).toContain(`${d.currency}</strong>`);
    expect(r.text).toContain('<form method="post" action="/checkout/pay">');
    expect(r.text).toContain('<form method="post" action="/checkout/cancel">');
    expect(r.text).not.toContain('<script');
    expect(r.text).toMatch(/:focus-visible\{outline:3px solid/);
    const inputs = [...r.text.matchAll(/<input id="([a-z_]+)"/g)].map((m) => m[1]);
    expect(inputs).toEqual(['card_number', 'exp_month', 'exp_year', 'cvc', 'cardholder_name']);
    for (const id of inputs) expect(r.text).toContain(`<label for="${id}">`);
    expect(r.text.match(/name="pt" value="([^"]+)"/)?.[1]).toBe(pt);
  });

  it('pays with the test card: a PAID service-collected order, the domain sold, 303 to return_url', async () => {
    const { d, session, pt } = await newSession();
    const r = await post('/checkout/pay', { pt, ...CARD });
    expect(r.status, r.text).toBe(303);
    const location = new URL(r.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe('https://partner.example.net/done');
    expect(location.searchParams.get('step')).toBe('3');
    const publicId = location.searchParams.get('public_id')!;
    expect(publicId).toMatch(/^ord_/);

    const order = await signedRequest(h, cred, { path: `${V1}/orders/${publicId}` });
    expect(order.status, order.text).toBe(200);
    expect(order.body).toMatchObject({
      status: 'PAID',
      payment_model: 'service_collected',
      domain: d.domain,
      sale_price_cents: d.price,
      checkout_session_id: session.session_id,
    });
    expect(order.body.timeline).toHaveLength(1);
    expect(order.body.timeline[0]).toMatchObject({ status: 'PAID', event_type: null });

    // Sold: no second sale of the domain, neither by order nor by another session.
    expectError(
      await signedRequest(h, cred, {
        method: 'POST',
        path: `${V1}/orders`,
        body: orderBody(d),
        idempotencyKey: `k-${publicId}`,
      }),
      'not_found',
    );
    expectError(await createSession(cred, sessionBody(d)), 'not_found');

    // The state machine goes on from PAID.
    const moved = await toReply(await h.admin(`/orders/${publicId}/start-transfer`));
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.status).toBe('TRANSFER_IN_PROGRESS');
  });

  it('never pays twice: the used token is 409 as a page and as JSON', async () => {
    const { pt } = await newSession();
    expect((await post('/checkout/pay', { pt, ...CARD })).status).toBe(303);
    const again = await post('/checkout/pay', { pt, ...CARD });
    expect(again.status).toBe(409);
    expect(again.text).toContain('<html lang="en">');
    expect(again.text).toContain('already complete');
    expectError(await post('/checkout/pay', { pt, ...CARD }, JSON_ACCEPT), 'invalid_state');
    expect((await page(pt)).status).toBe(409);
    expectError(await page(pt, JSON_ACCEPT), 'invalid_state');
    expectError(await post('/checkout/cancel', { pt }, JSON_ACCEPT), 'invalid_state');
  });

  it('a declined card shows the page again (200) with the decline and records nothing', async () => {
    const { d, pt } = await newSession();
    const r = await post('/checkout/pay', { pt, ...CARD, card_number: '4000000000000002' });
    expect(r.status).toBe(200);
    expect(r.text).toContain('role="alert"');
    expect(r.text).toContain('declined');
    expect(r.text).toContain('<form method="post" action="/checkout/pay">');
    const orders = await signedRequest(h, cred, { path: `${V1}/orders`, query: `domain=${d.domain}` });
    expect(orders.body.data).toEqual([]);
    // Another card that is not a test card is refused the same way.
    expect((await post('/checkout/pay', { pt, ...CARD, card_number: '5555555555554444' })).status).toBe(200);
    // The session is still payable.
    expect((await post('/checkout/pay', { pt, ...CARD })).status).toBe(303);
  });

  it('a malformed card field is 400: the page again for a browser, validation_error for JSON', async () => {
    const { pt } = await newSession();
    const r = await post('/checkout/pay', { pt, ...CARD, cvc: '12' });
    expect(r.status).toBe(400);
    expect(r.text).toContain('role="alert"');
    expect(r.text).toContain('<label for="cvc">');
    const j = await post('/checkout/pay', { pt, ...CARD, exp_month: '13' }, JSON_ACCEPT);
    expectError(j, 'validation_error');
    expect(j.body.details).toEqual([{ path: '/body/exp_month', message: expect.any(String) }]);
    expectError(
      await toReply(
        await fetch(`${h.baseUrl}/checkout/pay`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...JSON_ACCEPT },
          body: JSON.stringify({ pt, ...CARD }),
        }),
      ),
      'unsupported_media_type',
    );
  });

  it('cancel sends the browser to cancel_url and leaves the session usable', async () => {
    const { pt } = await newSession();
    const r = await post('/checkout/cancel', { pt });
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toBe('https://partner.example.net/cart');
    expect((await page(pt)).status).toBe(200);
  });

  it('a tampered, malformed or missing token is 400, never a payment', async () => {
    const { d, pt } = await newSession();
    const [body, mac] = pt.slice(3).split('.') as [string, string];
    const forged = `pt_${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), s: 'cs_other0000' })).toString('base64url')}.${mac}`;
    const flipped = `${pt.slice(0, -2)}${pt.endsWith('AA') ? 'BB' : 'AA'}`;
    for (const bad of [forged, flipped, 'pt_notatoken.atall0000', 'x'.repeat(20)]) {
      const r = await page(bad);
      expect(r.status).toBe(400);
      expect(r.text).toContain('<html lang="en">');
      expectError(await page(bad, JSON_ACCEPT), 'validation_error');
      expectError(await post('/checkout/pay', { pt: bad, ...CARD }, JSON_ACCEPT), 'validation_error');
      expectError(await post('/checkout/cancel', { pt: bad }, JSON_ACCEPT), 'validation_error');
    }
    expect((await toReply(await fetch(`${h.baseUrl}/checkout`))).status).toBe(400);
    const orders = await signedRequest(h, cred, { path: `${V1}/orders`, query: `domain=${d.domain}` });
    expect(orders.body.data).toEqual([]);
  });

  it('expires after 7 days of the partner business time (test clock): 410 session_expired', async () => {
    const partner = await h.mint({ scopes: SCOPES, rate_limits: HIGH });
    const { pt } = await newSession(partner);
    await advance(partner, 7 * DAY - 1);
    expect((await page(pt)).status).toBe(200);
    await advance(partner, 1);
    const r = await page(pt);
    expect(r.status).toBe(410);
    expect(r.text).toContain('expired');
    expectError(await page(pt, JSON_ACCEPT), 'session_expired');
    expectError(await post('/checkout/pay', { pt, ...CARD }, JSON_ACCEPT), 'session_expired');
    expect((await post('/checkout/pay', { pt, ...CARD })).status).toBe(410);
    expectError(await post('/checkout/cancel', { pt }, JSON_ACCEPT), 'session_expired');
  });

  it('tells the buyer when the domain was sold elsewhere before paying, and charges nothing', async () => {
    const { d, pt } = await newSession();
    const other = await h.mint({ scopes: SCOPES, rate_limits: HIGH });
    const sold = await signedRequest(h, other, {
      method: 'POST',
      path: `${V1}/orders`,
      body: orderBody(d),
      idempotencyKey: `sold-${d.domain}`,
    });
    expect(sold.status, sold.text).toBe(201);
    const r = await post('/checkout/pay', { pt, ...CARD });
    expect(r.status).toBe(409);
    expect(r.text).toContain('<h1>Domain no longer available</h1>');
    expect(r.text).toContain('no longer available');
    expectError(await post('/checkout/pay', { pt, ...CARD }, JSON_ACCEPT), 'invalid_state');
  });

  it("charges nothing while another partner's later quote reserves the domain, and pays once it has ended", async () => {
    const { d, pt } = await newSession();
    const other = await h.mint({ scopes: SCOPES, rate_limits: HIGH });
    const quote = await signedRequest(h, other, { method: 'POST', path: `${V1}/quotes`, body: { domain: d.domain } });
    expect(quote.status, quote.text).toBe(200);
    const refused = await post('/checkout/pay', { pt, ...CARD });
    expect(refused.status).toBe(409);
    expect(refused.text).toContain('<h1>Domain reserved for now</h1>');
    expect(refused.text).toContain('reserved for another buyer');
    expectError(await post('/checkout/pay', { pt, ...CARD }, JSON_ACCEPT), 'invalid_state');
    // Nothing was sold or recorded: the domain is still listed, and no order names the session.
    const seen = await signedRequest(h, cred, { method: 'GET', path: `${V1}/domains/${d.domain}` });
    expect(seen.body).toMatchObject({ domain: d.domain, available: false });
    expect(await h.store.orders.liveOrderFor('sandbox', d.domain)).toBeFalsy();
    // The reservation ends on its partner's clock; the same session then pays.
    await advance(other, 601);
    const paid = await post('/checkout/pay', { pt, ...CARD });
    expect(paid.status, paid.text).toBe(303);
  });

  describe('POST /checkout-session errors', () => {
    it('price_mismatch, not_found, domain_reserved, validation_error, forbidden', async () => {
      const d = await take(h, cred);
      expectError(await createSession(cred, sessionBody(d, { expected_price: d.price + 1 })), 'price_mismatch');
      expectError(await createSession(cred, sessionBody({ ...d, domain: 'not-listed-anywhere-zz.com' })), 'not_found');
      expectError(await createSession(cred, sessionBody(d, { return_url: 'not a url' })), 'validation_error');
      // User information before the host (RFC 9110 §4.2.4): the buyer would land after the `@`.
      for (const [member, url] of [
        ['return_url', 'https://shop.example.com@evil.example/x'],
        ['cancel_url', 'https://user:pw@shop.example.com/c'],
        ['return_url', 'https://@evil.example/x'],
      ] as const) {
        const refused = await createSession(cred, sessionBody(d, { [member]: url }));
        expectError(refused, 'validation_error');
        expect(refused.body.details, refused.text).toEqual([
          { path: `/body/${member}`, message: expect.stringContaining('must not carry user information') },
        ]);
      }
      const { return_url: _r, ...noReturn } = sessionBody(d);
      expectError(await createSession(cred, noReturn), 'validation_error');
      const noEmbed = await h.mint({ scopes: ['search', 'buy'], rate_limits: HIGH });
      expectError(await createSession(noEmbed, sessionBody(d)), 'forbidden');

      const other = await h.mint({ scopes: SCOPES, rate_limits: HIGH });
      const quote = await signedRequest(h, other, { method: 'POST', path: `${V1}/quotes`, body: { domain: d.domain } });
      expect(quote.status, quote.text).toBe(200);
      expectError(await createSession(cred, sessionBody(d)), 'domain_reserved');
    });

    it('with a quote: the quoted price; an expired quote 422, a tampered one 400', async () => {
      const partner = await h.mint({ scopes: SCOPES, rate_limits: HIGH });
      const d = await take(h, partner);
      const quote = await signedRequest(h, partner, {
        method: 'POST',
        path: `${V1}/quotes`,
        body: { domain: d.domain },
      });
      expect(quote.status, quote.text).toBe(200);
      const quoteId = quote.body.quote_id as string;
      expectError(
        await createSession(partner, sessionBody(d, { quote_id: `${quoteId.slice(0, -2)}xx` })),
        'validation_error',
      );
      const ok = await createSession(partner, sessionBody(d, { quote_id: quoteId }));
      expect(ok.status, ok.text).toBe(201);
      expect(ok.body).toMatchObject({ quote_id: quoteId, price_cents: quote.body.price_cents });
      await advance(partner, 601);
      expectError(await createSession(partner, sessionBody(d, { quote_id: quoteId })), 'quote_expired');
    });
  });
});
