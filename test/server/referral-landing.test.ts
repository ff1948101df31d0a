// Where a referral link lands: every destination of a real /r/{code} redirect is a page of the
// public document that answers 200 HTML (home, domain, product), with the tracking query it was
// opened with ignored; a domain sold since still has its page. The path segment is the link
// author's or anyone's choice: malformed is 400, unknown is 404, both as a page (or the Error
// body for JSON), and a hostile segment is never reflected unescaped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRODUCTS } from '../../server/domain/referral.ts';
import { startHarness, type Harness } from './harness.ts';
import { domainSource, expectError, INVENTORY_SIZE, signedRequest, toReply } from './support/http.ts';

const V1 = '/api/partner/v1';
const HIGH = { search: 10_000, write: 10_000, reporting: 10_000 };

describe('referral landing pages', () => {
  let h: Harness;
  const take = domainSource();

  beforeAll(async () => {
    h = await startHarness({ inventorySize: INVENTORY_SIZE });
  });
  afterAll(async () => {
    await h?.close();
  });

  /** Creates a link and follows it as a browser would; returns where it redirected. */
  const landing = async (body: Record<string, unknown>, query = '') => {
    const c = await h.mint({ scopes: ['search', 'refer'], affiliate: true, rate_limits: HIGH });
    const link = await signedRequest(h, c, { method: 'POST', path: `${V1}/links`, body });
    expect(link.status, link.text).toBe(201);
    const res = await fetch(`${link.body.url as string}${query}`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    return res.headers.get('location')!;
  };

  /** Opens a page as a browser navigation. */
  const browse = async (url: string) => {
    const res = await fetch(url, { redirect: 'manual', headers: { accept: 'text/html,*/*;q=0.8' } });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };

  const expectHtmlPage = (page: Awaited<ReturnType<typeof browse>>, status = 200) => {
    expect({ status: page.status, text: page.status === status ? '' : page.text }).toEqual({ status, text: '' });
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toMatch(/^<!doctype html>\n<html lang="en">/);
    // The house rules of every HTML answer (x-security-headers).
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'; style-src 'sha256-/);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('x-request-id')).toBeTruthy();
    expect(page.headers.get('ratelimit-policy')).toBeTruthy();
  };

  it('a generic link lands on the home page, with its tracking query accepted', async () => {
    const location = await landing({ type: 'generic' }, '?utm_source=news&utm_campaign=x');
    expect(location).toBe(`${h.baseUrl}/?utm_source=news&utm_campaign=x`);
    const page = await browse(location);
    expectHtmlPage(page);
    for (const slug of PRODUCTS) expect(page.text).toContain(`href="/products/${slug}"`);
  });

  it('a domain link lands on the domain page, which says it has been sold once it is', async () => {
    const c = await h.mint({ scopes: ['search'], rate_limits: HIGH });
    const d = await take(h, c);
    const location = await landing({ type: 'domain', domain: d.domain }, '?utm_medium=email');
    expect(location).toBe(`${h.baseUrl}/domains/${d.domain}?utm_medium=email`);
    const listed = await browse(location);
    expectHtmlPage(listed);
    expect(listed.text).toContain(`<h1>${d.domain}</h1>`);
    expect(listed.text).toContain('For sale at');
    expect(listed.text).toContain(`${d.currency}</strong>`);

    expect(await h.store.inventory.markSold('sandbox', d.domain)).toBe(true);
    const sold = await browse(location);
    expectHtmlPage(sold);
    expect(sold.text).toContain('has been sold');
    expect(sold.text).not.toContain('For sale at');
  });

  it('a product link lands on the product page; every product has one', async () => {
    const location = await landing({ type: 'product', product: 'brokerage' });
    expect(location).toBe(`${h.baseUrl}/products/brokerage`);
    const page = await browse(location);
    expectHtmlPage(page);
    expect(page.text).toContain('<h1>Domain brokerage</h1>');
    for (const slug of PRODUCTS) expectHtmlPage(await browse(`${h.baseUrl}/products/${slug}`));
  });

  it('HEAD answers like GET without a body', async () => {
    const res = await fetch(`${h.baseUrl}/products/marketplace`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toBe('');
  });

  it('a malformed name or slug is 400 and an unknown one 404: a page for a browser, the Error body for JSON', async () => {
    const cases: Array<[string, number, string]> = [
      ['/domains/Not_A_Domain', 400, 'validation_error'],
      ['/domains/nowhere-listed-zz.com', 404, 'not_found'],
      ['/products/Brokerage', 400, 'validation_error'],
      ['/products/no-such-product', 404, 'not_found'],
      // Names an Object.prototype member: a lookup must not find it.
      ['/products/constructor', 404, 'not_found'],
    ];
    for (const [path, status, code] of cases) {
      expectHtmlPage(await browse(`${h.baseUrl}${path}`), status);
      expectError(await toReply(await fetch(`${h.baseUrl}${path}`, { headers: { accept: 'application/json' } })), code);
    }
  });

  it('a hostile path segment is never reflected unescaped', async () => {
    const hostile = [
      '<script>alert(1)</script>.com',
      '"><img src=x onerror=alert(1)>',
      "x'onmouseover='alert(1)",
      '\u202Eevil.com',
    ];
    for (const raw of hostile) {
      for (const prefix of ['/domains/', '/products/']) {
        const url = `${h.baseUrl}${prefix}${encodeURIComponent(raw)}`;
        const page = await browse(url);
        expectHtmlPage(page, 400);
        expect(page.text).not.toContain(raw);
        expect(page.text).not.toMatch(/<script|<img|onerror=|onmouseover=/i);
        const json = await toReply(await fetch(url, { headers: { accept: 'application/json' } }));
        expectError(json, 'validation_error');
      }
    }
  });
});
