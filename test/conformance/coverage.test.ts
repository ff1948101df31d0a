// API coverage (conformance/coverage.ts): each operation × documented status, each webhook type
// and each x- rule, exercised or not, computed from the recorded exchanges against the bundled
// documents; and its section in every report format of a real run.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeCoverage, type Coverage } from '../../conformance/coverage.ts';
import type { Exchange } from '../../conformance/http.ts';
import type { CheckResult } from '../../conformance/runner.ts';
import { startReferenceServer } from '../../conformance/run.ts';
import { SpecIndex } from '../../conformance/spec.ts';
import { ROOT } from '../../scripts/contract.ts';

const run = promisify(execFile);
const spec = SpecIndex.load();
const BASE = 'http://127.0.0.1:9';

const exchange = (method: string, path: string, status: number, extra: Partial<Exchange> = {}): Exchange => ({
  family: 'f',
  check: 'c',
  checkId: 'x.y',
  startedAt: 0,
  method,
  url: `${BASE}${path}`,
  requestHeaders: {},
  requestBody: '',
  status,
  responseHeaders: {},
  responseBody: '',
  ms: 1,
  ...extra,
});

const pair = (c: Coverage, method: string, path: string) =>
  c.operations.find((o) => o.method === method && o.path === path);

describe('computeCoverage', () => {
  const result = (status: CheckResult['status'], rules: string[]): CheckResult => ({
    id: 'a.b',
    family: 'f',
    check: 'c',
    rules,
    status,
    ms: 1,
  });
  const c = computeCoverage(
    spec,
    [
      exchange('GET', '/api/partner/v1/orders/ord_ABCDEF123456', 404),
      exchange('GET', '/api/partner/v1/orders/ord_ABCDEF123456?x=1', 200),
      exchange('GET', '/api/partner/v1/orders', 418),
      exchange('POST', '/api/admin/v1/credentials', 201, { operator: true }),
      exchange('GET', '/api/market/listings?limit=2', 200),
      exchange('GET', '/no/such/path', 404),
    ],
    [
      result('passed', ['spec:partner#/x-webhook-delivery']),
      result('skipped', ['spec:partner:createQuote#/x-quote-validity-seconds']),
    ],
    new Map([['order.recorded', 2]]),
    BASE,
  );

  it('counts each answer against the operation whose path template the request path matches, by status', () => {
    expect(pair(c, 'GET', '/api/partner/v1/orders/{public_id}')?.statuses).toMatchObject({
      '200': 1,
      '404': 1,
      '429': 0,
    });
    expect(pair(c, 'POST', '/api/admin/v1/credentials')?.statuses['201']).toBe(1);
    expect(pair(c, 'GET', '/api/market/listings')?.statuses['200']).toBe(1);
    expect(pair(c, 'GET', '/api/partner/v1/orders')?.undocumented).toEqual({ '418': 1 });
    expect(c.unmatched).toBe(1);
    expect(c.pairs.exercised).toBe(4);
    const documented = spec.operations.reduce(
      (n, o) => n + Object.keys(o.responses).filter((s) => s !== 'default').length,
      0,
    );
    expect(c.pairs.total).toBe(documented);
    // GET /orders answered only a status it does not document: not an exercised operation.
    expect(c.operationsExercised).toEqual({ exercised: 3, total: spec.operations.length });
  });

  it('lists every webhook type of the partner document and every x- rule, exercised or not', () => {
    expect(c.webhooks.total).toBe(Object.keys(spec.documents.partner.webhooks as object).length);
    expect(c.webhooks.types['order.recorded']).toBe(2);
    expect(c.webhooks.types['order.refunded']).toBe(0);
    expect(c.webhooks.exercised).toBe(1);
    expect(c.rules.names['partner:x-webhook-delivery']).toBe(true);
    // Named only by a skipped check: not exercised.
    expect(c.rules.names['partner:x-quote-validity-seconds']).toBe(false);
    expect(c.rules.exercised).toBe(1);
  });
});

describe('the coverage section of every report of a run', () => {
  let dir = '';
  let server: Awaited<ReturnType<typeof startReferenceServer>>;
  let stdout = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'conformance-coverage-'));
    server = await startReferenceServer();
    const out = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        'conformance/cli.ts',
        '--base-url',
        server.url,
        '--admin-token',
        server.adminToken,
        '--only',
        'partner.auth.nonce.reuse',
        '--seed',
        '5',
        '--num-runs',
        '3',
        '--report',
        `json=${join(dir, 'r.json')},html=${join(dir, 'r.html')},junit=${join(dir, 'r.xml')}`,
      ],
      { cwd: ROOT, env: { ...process.env, ADMIN_TOKEN: '', SERVICE_KEY_ID: '', SERVICE_SECRET: '' } },
    );
    stdout = out.stdout;
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('console, JSON, HTML and JUnit: the figures, a pair the check exercised and one it never did', async () => {
    expect(stdout).toMatch(
      /API coverage \(against the bundled documents\):\n\s+(\d+) of (\d+) operation×status pairs exercised/,
    );
    expect(stdout).toMatch(/operations never exercised: .*partner POST \/api\/partner\/v1\/refunds/);
    const json = JSON.parse(await readFile(join(dir, 'r.json'), 'utf8')) as { coverage: Coverage };
    const availability = pair(json.coverage, 'GET', '/api/partner/v1/availability');
    expect(availability?.statuses['200']).toBeGreaterThan(0);
    expect(availability?.statuses['401']).toBeGreaterThan(0);
    expect(pair(json.coverage, 'POST', '/api/partner/v1/refunds')?.statuses['409']).toBe(0);
    const figures = new RegExp(
      `${json.coverage.pairs.exercised} of ${json.coverage.pairs.total} operation×status pairs`,
    );
    expect(stdout).toMatch(figures);
    const html = await readFile(join(dir, 'r.html'), 'utf8');
    expect(html).toContain('<section id="coverage"><h2>API coverage</h2>');
    expect(html).toMatch(figures);
    expect(html).toMatch(
      /data-op="partner GET \/api\/partner\/v1\/availability".*?data-status="401" data-count="[1-9]/,
    );
    expect(html).toMatch(/data-op="partner POST \/api\/partner\/v1\/refunds".*?data-status="409" data-count="0"/);
    const xml = await readFile(join(dir, 'r.xml'), 'utf8');
    expect(xml).toContain(
      `<property name="coverage.operation-status-pairs" value="${json.coverage.pairs.exercised}/${json.coverage.pairs.total}"/>`,
    );
  });
});
