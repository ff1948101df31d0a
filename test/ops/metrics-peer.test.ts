// The /metrics text read by a parser nobody here wrote: the official Prometheus Python client's
// (Debian's python3-prometheus-client for /usr/bin/python3; .ci/run installs it). The latency
// histograms are array-backed (server/ops/bucket-histogram.ts), so this checks that what the
// server serves is a well-formed exposition to a real reader: every family parses with its type,
// buckets are cumulative and end in +Inf equal to _count, and the sums and counts are the
// observations made. Without the parser the test is skipped, loudly.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../../server/ops/metrics.ts';
import { startMetricsServer, type MetricsServer } from '../../server/ops/metrics-server.ts';
import { silentLogger } from '../../server/ops/logger.ts';

const PYTHON = '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('./prometheus_parse.py', import.meta.url));
const probe = spawnSync(PYTHON, ['-c', 'import prometheus_client.parser'], { encoding: 'utf8' });
const PARSER = probe.status === 0;
if (!PARSER) {
  console.warn(
    `\n*** prometheus_client is not importable by ${PYTHON}: the independent /metrics parser test is SKIPPED (apt-get install -y python3-prometheus-client; .ci/run installs it) ***\n${probe.stderr ?? ''}`,
  );
}

interface Sample {
  name: string;
  labels: Record<string, string>;
  /** A value that is not finite comes as its text (NaN, +Inf). */
  value: number | string;
}
interface Family {
  name: string;
  type: string;
  samples: Sample[];
}

function parse(text: string): Family[] {
  const run = spawnSync(PYTHON, [SCRIPT], { input: text, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`the Prometheus parser refused the exposition:\n${run.stderr}`);
  return JSON.parse(run.stdout) as Family[];
}

describe.skipIf(!PARSER)('GET /metrics, read by the Prometheus Python client', () => {
  let server: MetricsServer;
  // Request latencies (s) for one operation answered 2xx, chosen on, between and past the bounds.
  const latencies = [0.0004, 0.001, 0.003, 0.02, 0.02, 0.7, 12];
  const statements = [0.00005, 0.0003, 0.002, 2];

  beforeAll(async () => {
    const metrics = createMetrics();
    for (const seconds of latencies) metrics.request({ operationId: 'getAvailability', status: 200, seconds });
    metrics.request({ operationId: 'createOrder', status: 409, seconds: 0.004 });
    for (const seconds of statements) metrics.storeQuery(seconds, false);
    metrics.storeQuery(0.01, true);
    metrics.replayRefused();
    server = await startMetricsServer(metrics, { port: 0, host: '127.0.0.1', logger: silentLogger });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('parses every family with its type, and the histograms as Prometheus defines them', async () => {
    const res = await fetch(server.url);
    expect(res.status).toBe(200);
    const families = parse(await res.text());
    const family = (name: string) => families.find((f) => f.name === name);

    expect(family('http_request_duration_seconds')?.type).toBe('histogram');
    expect(family('store_query_duration_seconds')?.type).toBe('histogram');
    // The parser names a counter's family without its _total suffix.
    expect(family('http_requests')?.type).toBe('counter');
    expect(family('replay_refusals')?.samples.find((s) => s.name === 'replay_refusals_total')?.value).toBe(1);
    // prom-client's default metrics parse too (process and Node.js).
    expect(families.some((f) => f.name.startsWith('nodejs_'))).toBe(true);

    const series = (name: string, labels: Record<string, string>) =>
      family(name)?.samples.filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v)) ?? [];
    const check = (name: string, labels: Record<string, string>, observed: number[]) => {
      const samples = series(name, labels);
      const buckets = samples.filter((s) => s.name === `${name}_bucket`);
      const les = buckets.map((b) => b.labels.le);
      expect(les.at(-1)).toBe('+Inf');
      const bounds = les.slice(0, -1).map(Number);
      // Each bucket counts the observations at or below its bound (cumulative), as the client reads them.
      for (const b of buckets) {
        const bound = b.labels.le === '+Inf' ? Infinity : Number(b.labels.le);
        expect(b.value, `${name}{le="${b.labels.le}"}`).toBe(observed.filter((v) => v <= bound).length);
      }
      expect(bounds).toEqual([...bounds].sort((a, b) => a - b));
      expect(samples.find((s) => s.name === `${name}_count`)?.value).toBe(observed.length);
      expect(samples.find((s) => s.name === `${name}_sum`)?.value).toBeCloseTo(
        observed.reduce((a, b) => a + b, 0),
        9,
      );
    };
    check('http_request_duration_seconds', { operation: 'getAvailability', status_class: '2xx' }, latencies);
    check('http_request_duration_seconds', { operation: 'createOrder', status_class: '4xx' }, [0.004]);
    check('store_query_duration_seconds', { result: 'ok' }, statements);
    check('store_query_duration_seconds', { result: 'error' }, [0.01]);
    // The request count is each latency series' own count.
    expect(
      series('http_requests', { operation: 'getAvailability', status_class: '2xx' }).find(
        (s) => s.name === 'http_requests_total',
      )?.value,
    ).toBe(latencies.length);
  });
});
