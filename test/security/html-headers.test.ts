// Security headers (the public document's `x-security-headers`): every answer `nosniff`; every
// HTML answer (hosted checkout, brokerage progress, sign-in, docs, error pages, the HTML bodies
// of redirects) a CSP that allows no script and only the page's own inline style by its hash,
// `frame-ancestors 'none'` with `X-Frame-Options: DENY`, `Referrer-Policy: no-referrer`, and a
// `form-action` naming exactly where the page's forms lead (`x-form-action`). HSTS only on an
// https deployment. The expectations are read from the document, not copied from the server.
import { createHash, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../server/app.ts';
import { register } from '../oauth/support.ts';
import { startHarness, type Harness } from '../server/harness.ts';
import { sessionBody } from '../server/support/checkout.ts';
import { domainSource, signedRequest, type Credential } from '../server/support/http.ts';

const PUBLIC = JSON.parse(readFileSync(new URL('../../generated/public.openapi.json', import.meta.url), 'utf8')) as {
  'x-security-headers': {
    'every-answer': Record<string, string>;
    'https-deployments': Record<string, string>;
    'html-answers': Record<string, string>;
  };
};
const HEADERS = PUBLIC['x-security-headers'];
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

/** The CSP's directives by name. */
function directives(csp: string | null): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const part of (csp ?? '').split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name) out.set(name.toLowerCase(), sources);
  }
  return out;
}

/** The hash sources of the page's inline <style> elements, computed here from the page itself. */
function styleHashesOf(html: string): string[] {
  return [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map(
    (m) =>
      `'sha256-${createHash('sha256')
        .update(m[1] ?? '')
        .digest('base64')}'`,
  );
}

/** Every header the document promises an HTML answer, with `form-action` exactly `formAction`. */
async function expectHardenedPage(res: Response, formAction: string[]): Promise<string> {
  const html = await res.text();
  expect(res.headers.get('content-type') ?? '').toMatch(/^text\/html/);
  for (const [name, value] of Object.entries(HEADERS['every-answer'])) expect(res.headers.get(name), name).toBe(value);
  for (const [name, value] of Object.entries(HEADERS['html-answers']))
    if (name !== 'Content-Security-Policy') expect(res.headers.get(name), name).toBe(value);
  const csp = directives(res.headers.get('content-security-policy'));
  expect(csp.get('default-src')).toEqual(["'none'"]);
  expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
  expect(csp.get('base-uri')).toEqual(["'none'"]);
  expect(csp.has('script-src'), 'no script source is ever allowed').toBe(false);
  expect(res.headers.get('content-security-policy')).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
  const styles = styleHashesOf(html);
  expect(csp.get('style-src')).toEqual(styles.length ? [...new Set(styles)] : ["'none'"]);
  expect(new Set(csp.get('form-action'))).toEqual(new Set(formAction.length ? formAction : ["'none'"]));
  expect(res.headers.get('strict-transport-security')).toBeNull(); // not an https deployment
  return html;
}

describe('security headers on every HTML answer', () => {
  let h: Harness;
  let cred: Credential;
  const nextDomain = domainSource(40);
  beforeAll(async () => {
    h = await startHarness({ inventorySize: 40, dispatch: false });
    cred = await h.mint({
      scopes: ['search', 'embed', 'broker', 'refer'],
      affiliate: true,
      rate_limits: { search: 1000, write: 1000 },
    });
  });
  afterAll(() => h.close());
  beforeEach(() => h.clock.advance(61_000));

  const html = (path: string, init: RequestInit = {}) =>
    fetch(`${h.baseUrl}${path}`, {
      redirect: 'manual',
      ...init,
      headers: { accept: 'text/html', ...(init.headers ?? {}) },
    });

  it('the checkout page: its forms may lead only here and to the session return and cancel origins', async () => {
    const session = await signedRequest(h, cred, {
      method: 'POST',
      path: '/api/partner/v1/checkout-session',
      body: sessionBody(await nextDomain(h, cred), {
        return_url: 'https://shop.partner.example/done?x=1',
        cancel_url: 'http://127.0.0.1:4111/cart',
      }),
    });
    expect(session.status, session.text).toBe(201);
    const pt = new URL(session.body.checkout_url as string).searchParams.get('pt') ?? '';
    const page = await expectHardenedPage(await html(`/checkout?pt=${pt}`), [
      "'self'",
      'https://shop.partner.example',
      'http://127.0.0.1:4111',
    ]);
    expect(page).toContain('action="/checkout/pay"');
    // A declined card shows the page again: the same forms, the same destinations.
    const declined = await html('/checkout/pay', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ pt, card_number: '4000000000000002', exp_month: '12', exp_year: '2099', cvc: '123' }),
    });
    expect(declined.status).toBe(200);
    await expectHardenedPage(declined, ["'self'", 'https://shop.partner.example', 'http://127.0.0.1:4111']);
  });

  it('hostile return and cancel origins add no directive and no source, and no $-pattern is expanded', async () => {
    // The WHATWG parser keeps `;`, `$`, `&`, `'` and backquote in a host; a CSP gives them meaning.
    // Such hosts are refused when a session is created (test/security/return-url.test.ts), so
    // these are written into a stored session, as a session from before that rule would hold them.
    const session = await signedRequest(h, cred, {
      method: 'POST',
      path: '/api/partner/v1/checkout-session',
      body: sessionBody(await nextDomain(h, cred), {}),
    });
    expect(session.status, session.text).toBe(201);
    await h.store.db
      .updateTable('checkout_sessions')
      .set({ return_url: 'https://c.com;sandbox;script-src/done', cancel_url: "https://x$&y$`z$'.example/cart" })
      .where('session_id', '=', session.body.session_id as string)
      .execute();
    const pt = new URL(session.body.checkout_url as string).searchParams.get('pt') ?? '';
    const res = await html(`/checkout?pt=${pt}`);
    const csp = res.headers.get('content-security-policy') ?? '';
    const template = HEADERS['html-answers']['Content-Security-Policy']!;
    // Exactly the document's directives, in its order: nothing added by a value.
    expect([...directives(csp).keys()]).toEqual([...directives(template).keys()]);
    expect(csp).not.toMatch(/[$`]|sandbox|c\.com/);
    await expectHardenedPage(res, ["'self'"]);
  });

  it('error pages of the hosted checkout', async () => {
    const res = await html('/checkout?pt=pt_not_a_real_token_0000');
    expect(res.status).toBe(400);
    await expectHardenedPage(res, ["'self'"]);
  });

  it('the brokerage progress page and its 404 page', async () => {
    const opened = await signedRequest(h, cred, {
      method: 'POST',
      path: '/api/partner/v1/brokerage',
      body: {
        domain: `wanted-${randomUUID().slice(0, 8)}.com`,
        tier: 'managed',
        buyer_email: 'b@example.org',
        budget: 100_000,
      },
    });
    expect(opened.status, opened.text).toBe(201);
    const progress = await html(new URL(opened.body.progress_url as string).pathname);
    expect(progress.status).toBe(200);
    await expectHardenedPage(progress, []);
    const missing = await html(`/brokerage/progress/${'A'.repeat(43)}`);
    expect(missing.status).toBe(404);
    await expectHardenedPage(missing, []);
  });

  it('the docs', async () => {
    for (const path of ['/docs', '/docs/oauth', '/docs/no-such-page']) {
      const res = await html(path);
      await expectHardenedPage(res, []);
    }
  });

  it('the sign-in page: its form may lead only here and to the client redirect_uri (origin, or scheme for an app)', async () => {
    const client = await register(h.baseUrl, {
      client_name: 'Headers',
      redirect_uris: ['http://127.0.0.1:33418/callback', 'com.example.app:/oauth'],
    });
    const open = (redirectUri: string) =>
      html(
        `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: redirectUri, code_challenge: CHALLENGE, code_challenge_method: 'S256', state: 's' })}`,
      );
    const web = await open('http://127.0.0.1:50000/callback');
    expect(web.status).toBe(200);
    await expectHardenedPage(web, ["'self'", 'http://127.0.0.1:50000']);
    const app = await open('com.example.app:/oauth');
    expect(app.status).toBe(200);
    await expectHardenedPage(app, ["'self'", 'com.example.app:']);
    const refused = await open('https://evil.example/cb');
    expect(refused.status).toBe(400);
    await expectHardenedPage(refused, ["'self'"]);
  });

  it('the HTML body of a redirect', async () => {
    const link = await signedRequest(h, cred, {
      method: 'POST',
      path: '/api/partner/v1/links',
      body: { type: 'generic' },
    });
    expect(link.status, link.text).toBe(201);
    const res = await html(new URL(link.body.url as string).pathname);
    expect(res.status).toBe(302);
    await expectHardenedPage(res, []);
  });

  it('nosniff on JSON answers too, without the page-only headers', async () => {
    for (const res of [
      await fetch(`${h.baseUrl}/api/v1`),
      await fetch(`${h.baseUrl}/api/partner/v1/availability?domain=a.com`),
      await fetch(`${h.baseUrl}/no/such/path`),
    ]) {
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).toBeNull();
    }
  });
});

describe('HSTS', () => {
  it('is sent on every answer of a deployment whose public base URL is https, and only there', async () => {
    const h = await startHarness({ inventorySize: 20, dispatch: false });
    try {
      const app = createApp({
        config: {
          adminToken: undefined,
          masterKey: h.masterKey,
          validateResponses: true,
          publicBaseUrl: 'https://api.example.com',
        },
        store: h.store,
        clock: h.clock,
        log: () => {},
      });
      const server = app.listen(0, '127.0.0.1');
      await new Promise((r) => server.once('listening', r));
      try {
        const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        for (const path of ['/docs', '/api/v1', '/api/partner/v1/availability?domain=a.com']) {
          const res = await fetch(`${base}${path}`);
          for (const [name, value] of Object.entries(HEADERS['https-deployments']))
            expect(res.headers.get(name), `${name} on ${path}`).toBe(value);
        }
      } finally {
        await new Promise((r) => server.close(r));
      }
      expect((await fetch(`${h.baseUrl}/api/v1`)).headers.get('strict-transport-security')).toBeNull();
    } finally {
      await h.close();
    }
  });
});
