// The security headers as a real browser obeys them (Debian's headless Chromium, JavaScript
// disabled, as the pages need none): no page can be framed by another site (clickjacking of the
// pay or approve buttons), the pages' own inline styles still apply under a CSP without
// 'unsafe-inline', and the forms still reach where they must (Chromium checks `form-action` on
// the redirect after a form post too): the sign-in form to the client's redirect_uri. The
// checkout form's way to return_url is covered by test/browser/checkout.browser.test.ts.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureSandboxUser } from '../../server/oauth/index.ts';
import { register, SANDBOX_USER } from '../oauth/support.ts';
import { startHarness, type Harness } from '../server/harness.ts';
import { sessionBody } from '../server/support/checkout.ts';
import { domainSource, signedRequest, type Credential } from '../server/support/http.ts';

const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM)
  console.warn(
    `\n*** ${CHROMIUM} is missing: the browser checks of the security headers are SKIPPED (.ci/run installs chromium) ***\n`,
  );

const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

describe.skipIf(!HAVE_CHROMIUM)('security headers in headless Chromium', () => {
  let h: Harness;
  let cred: Credential;
  let elsewhere: Server;
  let elsewhereBase: string;
  let framed = '';
  let userDataDir: string;
  let context: BrowserContext;
  const nextDomain = domainSource(20);

  beforeAll(async () => {
    h = await startHarness({ inventorySize: 20, dispatch: false });
    await ensureSandboxUser(h.store, SANDBOX_USER);
    cred = await h.mint({ scopes: ['search', 'embed'], rate_limits: { search: 1000, write: 1000 } });
    // Another site: it frames whatever `framed` names, and is the OAuth client's redirect target.
    elsewhere = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      if (req.url === '/frame')
        return void res.end(
          `<!doctype html><title>attacker</title><iframe name="victim" src="${framed}" width="800" height="600"></iframe>`,
        );
      res.end(
        `<!doctype html><title>client</title><h1>Back at the client: ${(req.url ?? '').replace(/[<>&"]/g, '')}</h1>`,
      );
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    elsewhereBase = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
    userDataDir = await mkdtemp(join(tmpdir(), 'security-chromium-'));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: ARGS,
      javaScriptEnabled: false,
    });
  });
  afterAll(async () => {
    await context?.close();
    if (userDataDir) await rm(userDataDir, { recursive: true, force: true });
    if (elsewhere) await new Promise<void>((resolve) => elsewhere.close(() => resolve()));
    await h?.close();
  });

  const checkoutUrl = async () => {
    const r = await signedRequest(h, cred, {
      method: 'POST',
      path: '/api/partner/v1/checkout-session',
      body: sessionBody(await nextDomain(h, cred), { return_url: `${elsewhereBase}/done` }),
    });
    expect(r.status, r.text).toBe(201);
    return r.body.checkout_url as string;
  };
  const authorizeUrl = async () => {
    const client = await register(h.baseUrl, {
      client_name: 'Browser Client',
      redirect_uris: [`${elsewhereBase}/callback`],
    });
    return `${h.baseUrl}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: `${elsewhereBase}/callback`, code_challenge: CHALLENGE, code_challenge_method: 'S256', state: 'st' })}`;
  };

  it('refuses to be framed by another site: checkout, sign-in and docs pages alike', async () => {
    for (const url of [await checkoutUrl(), await authorizeUrl(), `${h.baseUrl}/docs`]) {
      framed = url;
      const page = await context.newPage();
      await page.goto(`${elsewhereBase}/frame`);
      const frame = page.frame({ name: 'victim' });
      // A refused frame holds Chromium's error document, never the page.
      const content = (await frame?.content()) ?? '';
      expect(content, url).not.toMatch(/Card number|Sign in and approve|Developer docs/);
      await page.close();
    }
  });

  it("applies the pages' own inline styles under a CSP without unsafe-inline", async () => {
    for (const [url, maxWidth] of [
      [await checkoutUrl(), 34],
      [await authorizeUrl(), 30],
      [`${h.baseUrl}/docs`, 60],
    ] as const) {
      const page = await context.newPage();
      await page.goto(url);
      const width = await page.locator('body').evaluate((el) => getComputedStyle(el).maxWidth);
      expect(width, url).toBe(`${maxWidth * 16}px`);
      await page.close();
    }
  });

  it('lets the sign-in form lead to the client redirect_uri (form-action, checked on the redirect too), also from the page shown again after a wrong password', async () => {
    const page = await context.newPage();
    await page.goto(await authorizeUrl());
    await page.getByLabel('Email').fill(SANDBOX_USER.email);
    await page.getByLabel('Password').fill('not-the-password');
    await Promise.all([page.waitForLoadState(), page.getByRole('button', { name: 'Sign in and approve' }).click()]);
    expect(await page.getByRole('alert').innerText()).toContain('Wrong email or password');
    await page.getByLabel('Email').fill(SANDBOX_USER.email);
    await page.getByLabel('Password').fill(SANDBOX_USER.password);
    await Promise.all([
      page.waitForURL(`${elsewhereBase}/callback?**`),
      page.getByRole('button', { name: 'Sign in and approve' }).click(),
    ]);
    expect(new URL(page.url()).searchParams.get('code')).toMatch(/^ac_/);
    await page.close();
  });
});
