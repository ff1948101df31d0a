// The conformance kit's HTML report (--report html=FILE) in a real browser: Debian's headless
// Chromium, driven by playwright-core, opens the file with JavaScript disabled and no network
// allowed. It must render every check with its requirement ID, each failure with its message,
// exchange and replay command, and ask for nothing beyond the file itself.
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { htmlReport } from '../../conformance/html-report.ts';
import type { Exchange } from '../../conformance/http.ts';
import type { CheckResult } from '../../conformance/runner.ts';

const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM)
  console.warn(
    `\n*** ${CHROMIUM} is missing: the HTML conformance report browser test is SKIPPED (apt-get install -y chromium; .ci/run installs it) ***\n`,
  );

const exchange: Exchange = {
  family: 'nonce-replay',
  check: 'an identical request sent twice is refused the second time',
  checkId: 'partner.auth.nonce.identical-request',
  startedAt: Date.parse('2026-11-25T10:00:00Z'),
  method: 'GET',
  url: 'https://staging.example.com/api/partner/v1/availability?domain=a.com',
  requestHeaders: { 'X-Service-Key-Id': 'pk_test_abc', 'X-Service-Nonce': 'n-1' },
  requestBody: '',
  status: 200,
  responseHeaders: { 'content-type': 'application/json', 'x-request-id': 'req_1' },
  responseBody: '{"domain":"a.com","available":true,"note":"<script>alert(1)</script>"}',
  ms: 3,
};

const results: CheckResult[] = [
  {
    id: 'partner.auth.nonce.reuse',
    family: 'nonce-replay',
    check: 'a reused nonce gives 401 replay_detected',
    rules: ['spec:partner#/x-signing/nonce'],
    status: 'passed',
    ms: 120,
  },
  {
    id: 'partner.auth.nonce.identical-request',
    family: 'nonce-replay',
    check: 'an identical request sent twice is refused the second time',
    rules: ['spec:partner#/x-signing/nonce', 'seed:partner › Authentication › Replay protection'],
    status: 'failed',
    ms: 4,
    message: 'the same signed request replayed: expected 401 replay_detected, got 200',
    evidence: [exchange],
    seed: 42,
  },
  {
    id: 'partner.webhooks.redelivery',
    family: 'webhooks',
    check: 'a 500 answer is retried',
    rules: ['spec:partner#/x-webhook-delivery/retry-schedule-seconds'],
    status: 'skipped',
    ms: 0,
    message: 'needs a URL the deployment can deliver to (--webhook-public-url)',
  },
  {
    id: 'partner.lists.limit.bounds',
    family: 'edges',
    check: 'limit bounds',
    rules: ['spec:partner#/components/parameters/Limit'],
    status: 'failed',
    ms: 9,
    message: 'limit=201 accepted',
    baseline: { reason: 'known: ticket 12', verdict: 'known' },
  },
  {
    id: 'partner.auth.skew.past-edge',
    family: 'edges',
    check: 'past edge',
    rules: ['spec:partner#/x-signing/timestamp-comparison'],
    status: 'passed',
    ms: 3000,
    baseline: { reason: 'was broken', verdict: 'stale' },
  },
];

describe.skipIf(!HAVE_CHROMIUM)('the HTML conformance report in headless Chromium', () => {
  let browser: Browser;
  let dir = '';
  let file = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'conformance-html-'));
    file = join(dir, 'report.html');
    await writeFile(
      file,
      htmlReport(results, {
        baseUrl: 'https://staging.example.com',
        seed: 42,
        numRuns: 25,
        seconds: 12.5,
        date: '2026-11-25T10:00:00Z',
        bundleDir: 'failures',
      }),
    );
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('renders every check with its ID and outcome, each failure with its exchange and replay command, from the file alone', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    const requested: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    await page.goto(pathToFileURL(file).href);
    expect(await page.title()).toBe('Conformance report: https://staging.example.com');
    const rows = page.locator('tr.check');
    expect(await rows.count()).toBe(results.length);
    for (const r of results)
      await expect(page.locator(`tr[data-id="${r.id}"] code`).first().textContent()).resolves.toBe(r.id);
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-status')))).toEqual([
      'passed',
      'failed',
      'skipped',
      'known',
      'stale',
    ]);
    const failure = page.locator('tr[data-id="partner.auth.nonce.identical-request"]');
    await expect(failure.locator('.message').isVisible()).resolves.toBe(true);
    expect(await failure.locator('.message').textContent()).toContain('expected 401 replay_detected, got 200');
    expect(await failure.locator('.exchange summary').textContent()).toContain(
      'GET https://staging.example.com/api/partner/v1/availability?domain=a.com → 200',
    );
    expect(await failure.locator('code.replay').textContent()).toBe(
      'node failures/replay.mjs --base-url https://staging.example.com --check partner.auth.nonce.identical-request',
    );
    expect(await failure.locator('.rules').textContent()).toContain(
      'seed:partner › Authentication › Replay protection',
    );
    // The exchange's body is shown as text, never run as markup.
    expect(await page.locator('script').count()).toBe(0);
    expect(await failure.locator('pre').last().textContent()).toContain('<script>alert(1)</script>');
    expect(await page.locator('#count-failed').textContent()).toBe('1 failed');
    const box = await failure.boundingBox();
    expect(box && box.height > 40 && box.width > 300).toBe(true);
    expect(requested.filter((u) => !u.startsWith('file:'))).toEqual([]);
    await context.close();
  });
});
