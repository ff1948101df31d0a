// The partner reference in a real browser (Debian's headless Chromium via playwright-core): the
// section of POST /api/partner/v1/orders shows a code sample per reference signer (each language
// folder of examples/signing/ with a template) beside the curl one, each naming the operation, and
// each links to its signer's page, which shows the signer's source. .ci/run installs Chromium;
// without it these tests are skipped, loudly.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromEnv } from '../../server/config.ts';
import { startServer, type RunningServer } from '../../server/embedded.ts';

const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) {
  console.warn(
    `\n*** ${CHROMIUM} is missing: the docs code-sample browser test is SKIPPED (apt-get install -y chromium; .ci/run installs it) ***\n`,
  );
}

// Which languages the page must show is read from the folders, not from the docs code.
const SIGNING_DIR = fileURLToPath(new URL('../../examples/signing/', import.meta.url));
const LANGUAGES = readdirSync(SIGNING_DIR).flatMap((language) => {
  const template = existsSync(join(SIGNING_DIR, language, 'README.md'))
    ? readdirSync(join(SIGNING_DIR, language)).find((f) => /^snippet\.[a-z0-9]+\.tmpl$/.test(f))
    : undefined;
  return template ? [{ language, fence: template.split('.')[1]! }] : [];
});

describe.skipIf(!HAVE_CHROMIUM)('the per-language code samples of the partner reference in Chromium', () => {
  let server: RunningServer;
  let dataDir: string;
  let browser: Browser;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'docs-samples-browser-'));
    server = await startServer({
      config: configFromEnv({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', SANDBOX_INVENTORY_SIZE: '50' }),
      log: () => {},
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('shows curl and every language on POST /api/partner/v1/orders, and each links to its signer', async () => {
    expect(LANGUAGES.map((l) => l.language)).toEqual(expect.arrayContaining(['go', 'java']));
    const page = await browser.newPage();
    const response = await page.goto(`${server.url}/docs/partner-api#post-api-partner-v1-orders`);
    expect(response?.status()).toBe(200);

    // The visible code blocks between this operation's heading and the next one.
    const { blocks, links } = await page.evaluate(() => {
      const heading = document.getElementById('post-api-partner-v1-orders');
      const found: Array<{ cls: string; text: string; visible: boolean }> = [];
      const hrefs: string[] = [];
      for (let el = heading?.nextElementSibling; el && el.tagName !== 'H3'; el = el.nextElementSibling) {
        for (const code of Array.from(el.querySelectorAll<HTMLElement>('pre code')))
          found.push({ cls: code.className, text: code.innerText.trim(), visible: code.getClientRects().length > 0 });
        for (const a of Array.from(el.querySelectorAll('a'))) hrefs.push(a.getAttribute('href') ?? '');
      }
      return { blocks: found, links: hrefs };
    });
    const sample = (fence: string) => blocks.find((b) => b.cls === `language-${fence}`);
    expect(sample('sh')?.text).toMatch(
      /^domain-sales request POST '\/api\/partner\/v1\/orders' --data '\{.*\}' --curl$/,
    );
    for (const { language, fence } of LANGUAGES) {
      // The shell signer's block shares the curl line's fence and comes after it.
      const block = blocks.find((b) => b.cls === `language-${fence}` && !b.text.startsWith('domain-sales request '));
      expect(block, `${language} sample`).toBeDefined();
      expect(block!.visible).toBe(true);
      expect(block!.text).toMatch(/["' ]POST["' ]/);
      expect(block!.text).toContain('/api/partner/v1/orders');
      expect(block!.text).toMatch(/idempotency[-_]key/i);
    }

    // Each language's link leads to its page, which shows the signer itself.
    for (const { language } of LANGUAGES) expect(links).toContain(`/docs/signing-${language}`);
    const go = await browser.newPage();
    await go.goto(`${server.url}/docs/signing-go`);
    const source = readFileSync(join(SIGNING_DIR, 'go', 'signing.go'), 'utf8');
    const firstFunction = /^func [A-Za-z]+\(.*$/m.exec(source)![0];
    expect(await go.locator('pre code').allInnerTexts()).toEqual(
      expect.arrayContaining([expect.stringContaining(firstFunction)]),
    );
    await go.close();
    await page.close();
  });
});
