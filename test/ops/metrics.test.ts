// GET /metrics after a small load: every count the load caused is there, exactly (issue 25:
// requests per operation and status class, rate-limit refusals per class, replay refusals,
// idempotency replays and conflicts, delivery attempts by outcome, outbox depth, the oldest
// undelivered event's age, store query latency). Scraped over HTTP from the metrics listener.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateInventory } from '../../server/inventory/generate.ts';
import { createMetrics, type Metrics } from '../../server/ops/metrics.ts';
import { startMetricsServer, type MetricsServer } from '../../server/ops/metrics-server.ts';
import { outboxProbe } from '../../server/ops/outbox-probe.ts';
import { silentLogger } from '../../server/ops/logger.ts';
import { startHarness, type Harness } from '../server/harness.ts';
import { databases, domainSource, INVENTORY_SIZE, orderBody, signedRequest } from '../server/support/http.ts';
import { startReceiver, type Receiver } from '../server/support/receiver.ts';

/** The value of one sample of the exposition text, `undefined` when the series is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const want = Object.entries(labels);
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.keys(have).length === want.length && want.every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

async function scrape(server: MetricsServer): Promise<string> {
  const res = await fetch(server.url);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
}

describe.each(databases())('metrics after a small load ($name)', ({ databaseUrl }) => {
  let h: Harness;
  let metrics: Metrics;
  let server: MetricsServer;
  let rx: Receiver;
  const take = domainSource();
  // A listed name domainSource hands out last (it starts at the first), for the plain price reads.
  const listed = `domain=${[...generateInventory({ size: INVENTORY_SIZE, seed: 1 })].at(-1)?.domain}`;

  beforeAll(async () => {
    metrics = createMetrics({ defaultMetrics: false });
    h = await startHarness({ databaseUrl, inventorySize: INVENTORY_SIZE, metrics });
    metrics.watchOutbox(outboxProbe(h.store, h.clock));
    server = await startMetricsServer(metrics, { port: 0, host: '127.0.0.1', logger: silentLogger });
    rx = await startReceiver();
  });
  afterAll(async () => {
    await server?.close();
    await h?.close();
    await rx?.close();
  });

  it('counts exactly what the load caused', async () => {
    const before = await scrape(server);
    expect(sample(before, 'http_requests_total', { operation: 'getPricing', status_class: '2xx' })).toBeUndefined();
    expect(sample(before, 'replay_refusals_total')).toBe(0);

    // A partner allowed 3 search calls per window: 3 answered, the next 2 refused 429.
    const tight = await h.mint({ rate_limits: { search: 3, write: 100, reporting: 100 } });
    const pricing = () => signedRequest(h, tight, { path: '/api/partner/v1/pricing', query: listed });
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await pricing()).status);
    expect(statuses.filter((s) => s !== 429)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(2);

    // Another partner: a replayed nonce (refused), an order, its replay and a conflicting reuse of its key.
    const cred = await h.mint({ rate_limits: { search: 1000, write: 1000, reporting: 1000 } });
    const registered = await signedRequest(h, cred, {
      method: 'PUT',
      path: '/api/partner/webhooks',
      body: { url: rx.url, secret: `whsec_${randomUUID()}` },
    });
    expect(registered.status, registered.text).toBe(200);
    const nonce = randomUUID();
    expect((await signedRequest(h, cred, { path: '/api/partner/v1/pricing', query: listed, nonce })).status).not.toBe(
      401,
    );
    const replay = await signedRequest(h, cred, { path: '/api/partner/v1/pricing', query: listed, nonce });
    expect(replay.body?.code).toBe('replay_detected');
    const listing = await take(h, cred); // one more getPricing (2xx)
    const key = randomUUID();
    const order = await signedRequest(h, cred, {
      method: 'POST',
      path: '/api/partner/v1/orders',
      body: orderBody(listing),
      idempotencyKey: key,
    });
    expect(order.status, order.text).toBe(201);
    const again = await signedRequest(h, cred, {
      method: 'POST',
      path: '/api/partner/v1/orders',
      body: orderBody(listing),
      idempotencyKey: key,
    });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const other = await take(h, cred); // one more getPricing (2xx)
    const conflict = await signedRequest(h, cred, {
      method: 'POST',
      path: '/api/partner/v1/orders',
      body: orderBody(other),
      idempotencyKey: key,
    });
    expect(conflict.status, conflict.text).toBe(409);
    // The public surface: its window of 60 per client, then one refusal of class "public".
    const publicStatuses: number[] = [];
    for (let i = 0; i < 61; i++) {
      const r = await fetch(`${h.baseUrl}/api/v1`);
      publicStatuses.push(r.status);
      await r.arrayBuffer();
    }
    expect(publicStatuses.filter((s) => s === 429)).toHaveLength(1);
    // The order's event reaches the receiver.
    await rx.waitFor((d) => d.length >= 1, 5000, 'the order event');
    await new Promise((r) => setTimeout(r, 100));

    const after = await scrape(server);
    // getPricing: 3 + 1 + 2 answered 2xx by the two partners; 2 refused 429; 1 replay 401.
    expect(sample(after, 'http_requests_total', { operation: 'getPricing', status_class: '2xx' })).toBe(6);
    expect(sample(after, 'http_requests_total', { operation: 'getPricing', status_class: '4xx' })).toBe(3);
    expect(sample(after, 'http_request_duration_seconds_count', { operation: 'getPricing', status_class: '2xx' })).toBe(
      6,
    );
    expect(sample(after, 'http_requests_total', { operation: 'createOrder', status_class: '2xx' })).toBe(2);
    expect(sample(after, 'http_requests_total', { operation: 'createOrder', status_class: '4xx' })).toBe(1);
    expect(sample(after, 'rate_limit_refusals_total', { class: 'search' })).toBe(2);
    expect(sample(after, 'rate_limit_refusals_total', { class: 'write' })).toBeUndefined();
    expect(sample(after, 'rate_limit_refusals_total', { class: 'public' })).toBe(1);
    expect(sample(after, 'http_requests_total', { operation: 'getApiIndex', status_class: '2xx' })).toBe(60);
    expect(sample(after, 'http_requests_total', { operation: 'getApiIndex', status_class: '4xx' })).toBe(1);
    expect(sample(after, 'replay_refusals_total')).toBe(1);
    expect(sample(after, 'idempotency_replays_total')).toBe(1);
    expect(sample(after, 'idempotency_conflicts_total')).toBe(1);
    expect(sample(after, 'webhook_delivery_attempts_total', { outcome: 'delivered' })).toBe(rx.deliveries.length);
    expect(sample(after, 'webhook_outbox_depth', { status: 'delivered' })).toBe(rx.deliveries.length);
    expect(sample(after, 'webhook_outbox_depth', { status: 'pending' })).toBe(0);
    expect(sample(after, 'webhook_oldest_undelivered_age_seconds')).toBe(0);
    expect(sample(after, 'store_query_duration_seconds_count', { result: 'ok' })).toBeGreaterThan(
      sample(before, 'store_query_duration_seconds_count', { result: 'ok' }) ?? 0,
    );
  });
});

describe.each(databases())('outbox gauges of a backlog ($name)', ({ databaseUrl }) => {
  it('show the pending deliveries and the age of the oldest, read from the store at scrape time', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    // No dispatcher running: whatever is queued stays queued.
    const h = await startHarness({ databaseUrl, inventorySize: INVENTORY_SIZE, metrics, dispatch: false });
    const rx = await startReceiver();
    const server = await startMetricsServer(metrics, { port: 0, host: '127.0.0.1', logger: silentLogger });
    try {
      metrics.watchOutbox(outboxProbe(h.store, h.clock));
      const cred = await h.mint({ rate_limits: { search: 1000, write: 1000, reporting: 1000 } });
      expect(
        (
          await signedRequest(h, cred, {
            method: 'PUT',
            path: '/api/partner/webhooks',
            body: { url: rx.url, secret: `whsec_${randomUUID()}` },
          })
        ).status,
      ).toBe(200);
      const take = domainSource();
      for (let i = 0; i < 2; i++) {
        const listing = await take(h, cred);
        const r = await signedRequest(h, cred, {
          method: 'POST',
          path: '/api/partner/v1/orders',
          body: orderBody(listing),
          idempotencyKey: randomUUID(),
        });
        expect(r.status, r.text).toBe(201);
      }
      h.clock.advance(42_000);
      const text = await scrape(server);
      expect(sample(text, 'webhook_outbox_depth', { status: 'pending' })).toBe(2);
      expect(sample(text, 'webhook_oldest_undelivered_age_seconds')).toBe(42);
      expect(rx.deliveries).toHaveLength(0);
    } finally {
      await server.close();
      await h.close();
      await rx.close();
    }
  });
});
