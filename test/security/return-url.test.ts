// Where a hosted checkout sends the buyer afterwards (`return_url`, `cancel_url` of
// CheckoutSessionRequest): `https`, or `http` on a loopback host with a sandbox credential.
// Anything else (`javascript:`, `data:`, plain `http` to another host) is 400 `validation_error`
// when the session is created, so it never reaches a 303; and a session stored before this rule
// is never redirected to such a URL either.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../server/harness.ts';
import { sessionBody } from '../server/support/checkout.ts';
import { domainSource, expectError, signedRequest, type Credential } from '../server/support/http.ts';

const CARD = { card_number: '4242 4242 4242 4242', exp_month: '12', exp_year: '2099', cvc: '123' };

describe('checkout return_url and cancel_url', () => {
  let h: Harness;
  let cred: Credential;
  const nextDomain = domainSource(60);
  beforeAll(async () => {
    h = await startHarness({ inventorySize: 60, dispatch: false });
    cred = await h.mint({ scopes: ['search', 'embed'], rate_limits: { search: 1000, write: 1000 } });
  });
  afterAll(() => h.close());

  const create = async (c: Credential, extra: Record<string, unknown>) =>
    signedRequest(h, c, {
      method: 'POST',
      path: '/api/partner/v1/checkout-session',
      body: sessionBody(await nextDomain(h, cred), extra),
    });

  it.each([
    'javascript:alert(document.domain)',
    'JavaScript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'vbscript:msgbox(1)',
    'file:///etc/passwd',
    'ftp://partner.example.net/done',
    'http://partner.example.net/done',
    'http://127.0.0.1.evil.example/done',
    'http://localhost.evil.example/done',
    'https:///no-host',
    '//partner.example.net/done',
    '/relative/done',
    // Hosts the URL parser keeps but no name can have: a policy could not name them (form-action).
    'https://p.example.net;sandbox/x',
    'https://p.example.net,evil.example/x',
    'https://p.example.net$&/x',
    "https://p.example.net'/x",
    'https://a..example.net/x',
    'https://-a.example.net/x',
    'https://under_score.example.net/x',
  ])('refuses %j with 400 validation_error naming the member, as return_url and as cancel_url', async (url) => {
    for (const member of ['return_url', 'cancel_url']) {
      const r = await create(cred, { [member]: url });
      expectError(r, 'validation_error');
      expect(
        (r.body.details as Array<{ path: string }>).map((d) => d.path),
        r.text,
      ).toContain(`/body/${member}`);
    }
  });

  it.each([
    'https://partner.example.net/done?step=3',
    'HTTPS://partner.example.net/done',
    'http://127.0.0.1:3000/done',
    'http://localhost:8080/cancel',
    'http://[::1]:9000/done',
    'https://xn--caf-dma.example/done',
    'https://café.example/done',
    'https://partner.example.net./done',
    'https://203.0.113.7/done',
    'https://[2001:db8::1]:8443/done',
  ])('accepts %j from a sandbox credential', async (url) => {
    const r = await create(cred, { return_url: url, cancel_url: url });
    expect(r.status, r.text).toBe(201);
  });

  it('refuses http on loopback from a live credential: live return addresses are https', async () => {
    const live = await h.mint({ environment: 'live', scopes: ['embed'], approved: true });
    for (const member of ['return_url', 'cancel_url']) {
      const r = await signedRequest(h, live, {
        method: 'POST',
        path: '/api/partner/v1/checkout-session',
        body: sessionBody(
          { domain: 'live-only.com', price: 100, currency: 'USD' },
          { [member]: 'http://127.0.0.1:3000/done' },
        ),
      });
      expectError(r, 'validation_error');
      expect((r.body.details as Array<{ path: string }>).map((d) => d.path)).toContain(`/body/${member}`);
    }
  });

  it('never redirects a buyer to a stored session URL that breaks the rule (a session created before it)', async () => {
    const r = await create(cred, {});
    expect(r.status, r.text).toBe(201);
    const pt = new URL(r.body.checkout_url as string).searchParams.get('pt') ?? '';
    await h.store.db
      .updateTable('checkout_sessions')
      .set({ return_url: 'javascript:alert(1)', cancel_url: 'data:text/html,x' })
      .where('session_id', '=', r.body.session_id as string)
      .execute();
    const form = (fields: Record<string, string>) => ({
      method: 'POST',
      redirect: 'manual' as const,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      body: new URLSearchParams(fields),
    });
    const cancel = await fetch(`${h.baseUrl}/checkout/cancel`, form({ pt }));
    expect(cancel.status).toBeLessThan(500);
    expect(cancel.headers.get('location')).toBeNull();
    const paid = await fetch(`${h.baseUrl}/checkout/pay`, form({ pt, ...CARD }));
    expect(paid.status, await paid.clone().text()).toBe(200);
    expect(paid.headers.get('location')).toBeNull();
    expect(await paid.text()).toMatch(/paid/i);
  });
});
