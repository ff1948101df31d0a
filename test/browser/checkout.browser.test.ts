// The hosted checkout page in a real browser: Debian's headless Chromium, driven by playwright-core,
// with JavaScript DISABLED (the page must work as plain server-rendered HTML). Checks what the buyer
// sees (domain, price, buyer), accessibility (every input has an accessible name, keyboard focus is
// visible, the text contrast is at least 4.5:1), a sandbox payment that lands on return_url and leaves
// a PAID order, and the error page for a tampered token. .ci/run installs Chromium; without it these
// tests are skipped, loudly.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../server/harness.ts';
import { sessionBody } from '../server/support/checkout.ts';
import { domainSource, INVENTORY_SIZE, signedRequest, type Credential, type Listing } from '../server/support/http.ts';

const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) {
  console.warn(
    `\n*** ${CHROMIUM} is missing: the headless-browser checkout tests are SKIPPED (apt-get install -y chromium; .ci/run installs it) ***\n`,
  );
}

const V1 = '/api/partner/v1';
const SCOPES = ['search', 'buy', 'embed'];
const HIGH = { search: 10_000, write: 10_000, reporting: 10_000 };
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

type Rgb = [number, number, number];

/** WCAG 2 relative luminance and contrast ratio. */
const luminance = ([r, g, b]: Rgb) => {
  const lin = (c: number) => (c / 255 <= 0.04045 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4);
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
};
const contrast = (a: Rgb, b: Rgb) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
};
const parseRgb = (css: string): Rgb => {
  const m = css.match(/^rgba?\((\d+(?:\.\d+)?),\s*(\d+(?:\.\d+)?),\s*(\d+(?:\.\d+)?)/);
  if (!m) throw new Error(`not an rgb() colour: ${css}`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
};

describe.skipIf(!HAVE_CHROMIUM)('hosted checkout in headless Chromium, JavaScript disabled', () => {
  let h: Harness;
  let cred: Credential;
  let partnerSite: Server;
  let returnBase: string;
  let userDataDir: string;
  let context: BrowserContext;
  let shotDir: string;
  const take = domainSource();

  beforeAll(async () => {
    h = await startHarness({ inventorySize: INVENTORY_SIZE });
    cred = await h.mint({ scopes: SCOPES, rate_limits: HIGH });
    // The partner's site: where return_url and cancel_url point.
    partnerSite = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      if (req.url === '/js-probe')
        return void res.end('<!doctype html><title>off</title><script>document.title = "on"</script>');
      res.end(
        `<!doctype html><html lang="en"><title>Partner</title><h1>Back at the partner: ${req.url?.replace(/[<>&"]/g, '')}</h1></html>`,
      );
    });
    await new Promise<void>((resolve) => partnerSite.listen(0, '127.0.0.1', resolve));
    returnBase = `http://127.0.0.1:${(partnerSite.address() as AddressInfo).port}`;
    userDataDir = await mkdtemp(join(tmpdir(), 'checkout-chromium-profile-'));
    shotDir = await mkdtemp(join(tmpdir(), 'checkout-browser-shots-'));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      javaScriptEnabled: false,
      viewport: { width: 800, height: 900 },
    });
  });
  afterAll(async () => {
    await context?.close();
    if (userDataDir) await rm(userDataDir, { recursive: true, force: true });
    if (partnerSite) await new Promise<void>((resolve) => partnerSite.close(() => resolve()));
    await h?.close();
  });

  const newSession = async (): Promise<{ d: Listing; checkoutUrl: string }> => {
    const d = await take(h, cred);
    const body = sessionBody(d, { return_url: `${returnBase}/done?step=3`, cancel_url: `${returnBase}/cart` });
    const r = await signedRequest(h, cred, { method: 'POST', path: `${V1}/checkout-session`, body });
    expect(r.status, r.text).toBe(201);
    return { d, checkoutUrl: r.body.checkout_url as string };
  };

  const open = async (url: string): Promise<{ page: Page; status: number }> => {
    const page = await context.newPage();
    const response = await page.goto(url);
    return { page, status: response?.status() ?? 0 };
  };

  it('really runs with JavaScript disabled', async () => {
    const { page } = await open(`${returnBase}/js-probe`);
    expect(await page.title()).toBe('off');
    await page.close();
  });

  it('shows the domain, price and buyer; labelled inputs, visible focus, 4.5:1 contrast; pays to return_url', async () => {
    const { d, checkoutUrl } = await newSession();
    const { page, status } = await open(checkoutUrl);
    expect(status).toBe(200);

    // What the buyer sees.
    const text = await page.locator('main').innerText();
    expect(await page.title()).toBe(`Checkout - ${d.domain}`);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe(d.domain);
    const whole = Math.floor(d.price / 100).toLocaleString('en-US');
    const price = `${d.currency === 'USD' ? '$' : ''}${whole}.${String(d.price % 100).padStart(2, '0')} ${d.currency}`;
    expect(text).toContain(`Price: ${price}`);
    expect(text).toContain('Buyer: jane.doe@example.org');
    expect(await page.getByRole('button', { name: `Pay ${price}` }).count()).toBe(1);

    // Every visible input has a label and a non-empty accessible name (as the accessibility tree computes it).
    const inputs = page.locator('input:not([type=hidden])');
    const count = await inputs.count();
    expect(count).toBe(5);
    const snapshot = await page.locator('form').first().ariaSnapshot();
    const named = [...snapshot.matchAll(/- textbox "([^"]+)"/g)].map((m) => m[1]);
    expect(named).toEqual(['Card number', 'Expiry month', 'Expiry year', 'Security code (CVC)', 'Name on card']);
    for (let i = 0; i < count; i++) {
      expect(await inputs.nth(i).evaluate((el) => (el as HTMLInputElement).labels?.length ?? 0)).toBeGreaterThan(0);
    }
    for (const name of named) expect(await page.getByLabel(name!, { exact: true }).count()).toBe(1);

    // Keyboard focus: Tab reaches the card field first, and its focus indicator is drawn.
    let focused = '';
    for (let i = 0; i < 5 && focused !== 'card_number'; i++) {
      await page.keyboard.press('Tab');
      focused = await page.evaluate(() => document.activeElement?.id ?? '');
    }
    expect(focused).toBe('card_number');
    const ring = await page.locator('#card_number').evaluate((el) => {
      const s = getComputedStyle(el);
      return {
        focusVisible: el.matches(':focus-visible'),
        outlineStyle: s.outlineStyle,
        outlineWidth: s.outlineWidth,
        boxShadow: s.boxShadow,
      };
    });
    expect(ring.focusVisible).toBe(true);
    const hasOutline = ring.outlineStyle !== 'none' && parseFloat(ring.outlineWidth) >= 2;
    expect(hasOutline || ring.boxShadow !== 'none', JSON.stringify(ring)).toBe(true);

    // Contrast of the text against its effective background (the nearest opaque ancestor background).
    const colours = await page.evaluate(() => {
      const bg = (el: Element | null): string => {
        for (let e = el; e; e = e.parentElement) {
          const c = getComputedStyle(e).backgroundColor;
          if (!/rgba\(.*,\s*0\)$/.test(c) && c !== 'transparent') return c;
        }
        return 'rgb(255, 255, 255)';
      };
      return ['main', 'h1', 'main p', 'strong', 'label', '.hint', 'button.pay', 'button.cancel'].flatMap((sel) =>
        Array.from(document.querySelectorAll(sel)).map((el) => ({ sel, fg: getComputedStyle(el).color, bg: bg(el) })),
      );
    });
    expect(colours.length).toBeGreaterThan(8);
    for (const { sel, fg, bg } of colours) {
      const ratio = contrast(parseRgb(fg), parseRgb(bg));
      expect(ratio, `${sel}: ${fg} on ${bg} is ${ratio.toFixed(2)}:1`).toBeGreaterThanOrEqual(4.5);
    }

    const shot = join(shotDir, 'checkout.png');
    await page.screenshot({ path: shot, fullPage: true });
    console.info(`checkout page screenshot: ${shot}`);

    // Pay with the sandbox test card: a plain form POST, then the 303 to return_url.
    await page.keyboard.type('4242 4242 4242 4242');
    await page.getByLabel('Expiry month').fill('12');
    await page.getByLabel('Expiry year').fill('2099');
    await page.getByLabel('Security code (CVC)').fill('123');
    await page.getByLabel('Name on card').fill('Ada Buyer');
    await Promise.all([
      page.waitForURL(`${returnBase}/done?**`),
      page.getByRole('button', { name: `Pay ${price}` }).click(),
    ]);
    const landed = new URL(page.url());
    expect(`${landed.origin}${landed.pathname}`).toBe(`${returnBase}/done`);
    expect(landed.searchParams.get('step')).toBe('3');
    const publicId = landed.searchParams.get('public_id');
    expect(publicId).toMatch(/^ord_/);
    expect(await page.locator('h1').innerText()).toContain('Back at the partner');

    const orders = await signedRequest(h, cred, { path: `${V1}/orders`, query: `domain=${d.domain}` });
    expect(orders.status, orders.text).toBe(200);
    expect(orders.body.data).toHaveLength(1);
    expect(orders.body.data[0]).toMatchObject({
      public_id: publicId,
      status: 'PAID',
      domain: d.domain,
      sale_price_cents: d.price,
    });
    await page.close();
  });

  it('a tampered pt shows an error page with status 400 and no form', async () => {
    const { checkoutUrl } = await newSession();
    const url = new URL(checkoutUrl);
    const pt = url.searchParams.get('pt')!;
    url.searchParams.set('pt', `${pt.slice(0, -2)}${pt.endsWith('AA') ? 'BB' : 'AA'}`);
    const { page, status } = await open(url.toString());
    expect(status).toBe(400);
    expect(await page.title()).toBe('Checkout link not valid');
    expect(await page.getByRole('alert').innerText()).toContain('not valid');
    expect(await page.locator('form').count()).toBe(0);
    await page.screenshot({ path: join(shotDir, 'tampered.png'), fullPage: true });
    await page.close();
  });
});
