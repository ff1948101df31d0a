// The request observer times each request from its arrival to the answer's 'close' (the arrival
// time rides on the response, server/ops/access-log.ts): a handler that takes 80 ms must show as
// at least that in the log line's `ms` and in the latency histogram.
import express from 'express';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestObserver } from '../../server/ops/access-log.ts';
import { createLogger } from '../../server/ops/logger.ts';
import { createMetrics, type Metrics } from '../../server/ops/metrics.ts';

const WAIT_MS = 80;

describe('request observer timing', () => {
  const lines: Array<Record<string, unknown>> = [];
  let metrics: Metrics;
  let server: ReturnType<ReturnType<typeof express>['listen']>;
  let url: string;

  beforeAll(async () => {
    metrics = createMetrics({ defaultMetrics: false });
    const logger = createLogger({
      level: 'info',
      destination: { write: (s: string) => void lines.push(JSON.parse(s)) },
    });
    const app = express();
    app.use(requestObserver({ logger, metrics }));
    app.get('/slow', (_req, res) => void setTimeout(() => res.json({ ok: true }), WAIT_MS));
    app.get('/fast', (_req, res) => void res.json({ ok: true }));
    await new Promise<void>((resolve) => (server = app.listen(0, '127.0.0.1', () => resolve())));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('logs and observes the time the request took, each request its own', async () => {
    const [slow, fast] = await Promise.all([fetch(`${url}/slow`), fetch(`${url}/fast`)]);
    await Promise.all([slow.text(), fast.text()]);
    await new Promise((r) => setTimeout(r, 20));
    const ms = lines
      .filter((l) => l.msg === 'request')
      .map((l) => l.ms as number)
      .sort((a, b) => a - b);
    expect(ms).toHaveLength(2);
    expect(ms[0]).toBeLessThan(WAIT_MS);
    expect(ms[1]).toBeGreaterThanOrEqual(WAIT_MS - 2);
    expect(ms[1]).toBeLessThan(5000);
    const text = await metrics.registry.metrics();
    const labels = 'operation="unmatched",status_class="2xx"';
    expect(text).toContain(`http_request_duration_seconds_count{${labels}} 2`);
    // One of the two at or below 50 ms, the slow one above it.
    expect(text).toContain(`http_request_duration_seconds_bucket{le="0.05",${labels}} 1`);
    const sum = Number(new RegExp(`http_request_duration_seconds_sum\\{${labels}\\} (\\S+)`).exec(text)?.[1]);
    expect(sum).toBeGreaterThanOrEqual((WAIT_MS - 2) / 1000);
  });
});
