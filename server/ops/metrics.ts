// The server's metrics, in prom-client's own Registry (never the global default, so several
// servers in one process — tests, the benchmark — keep their counts apart). Counters are bumped
// by the request observer (access-log.ts), the webhook dispatcher and the store's statement
// listener; the two latencies observed on every answer are array-backed (bucket-histogram.ts);
// the request count and the outbox gauges are read when Prometheus scrapes.
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { BucketHistogram, type HistogramSeries } from './bucket-histogram.ts';

export type DeliveryOutcome = 'delivered' | 'retry' | 'failed' | 'error';

export interface OutboxProbe {
  /** Outbox rows by status (pending, delivered, failed). */
  depth(): Promise<Record<string, number>>;
  /** Age in seconds of the oldest event still waiting for delivery; 0 when none waits. */
  oldestPendingAgeSeconds(): Promise<number>;
}

export interface RequestObservation {
  operationId: string;
  status: number;
  seconds: number;
}

export interface Metrics {
  readonly registry: Registry;
  request(observation: RequestObservation): void;
  rateLimited(className: string): void;
  replayRefused(): void;
  idempotencyReplayed(): void;
  idempotencyConflict(): void;
  deliveryAttempt(outcome: DeliveryOutcome): void;
  storeQuery(seconds: number, failed: boolean): void;
  /** Reads the outbox gauges from `probe` at every scrape. */
  watchOutbox(probe: OutboxProbe): void;
}

/** 1 ms … 10 s: the signed GET answers in about a millisecond, an order in a few, a slow store in seconds. */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const QUERY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

export const statusClass = (status: number): string => `${Math.floor(status / 100)}xx`;

export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  // Latency per request and per statement: observed on every answer, so kept in arrays
  // (bucket-histogram.ts); the request count is each series' own count, read when Prometheus scrapes.
  const duration = new BucketHistogram({
    name: 'http_request_duration_seconds',
    help: 'Time from the request arriving to the answer being written, by operationId and status class.',
    labelNames: ['operation', 'status_class'],
    buckets: REQUEST_BUCKETS,
  }).registerIn(registry);
  new Counter({
    name: 'http_requests_total',
    help: 'Answered requests, by operationId (unmatched: no operation) and status class.',
    labelNames: ['operation', 'status_class'],
    registers: [registry],
    collect() {
      this.reset();
      for (const series of duration.all()) this.inc(series.labels, series.count);
    },
  });
  const rateLimited = new Counter({
    name: 'rate_limit_refusals_total',
    help: '429 rate_limited answers, by rate-limit class (x-rate-limit).',
    labelNames: ['class'],
    registers: [registry],
  });
  const replays = new Counter({
    name: 'replay_refusals_total',
    help: 'Signed requests refused as replays (401 replay_detected).',
    registers: [registry],
  });
  const idemReplays = new Counter({
    name: 'idempotency_replays_total',
    help: 'Answers replayed for a repeated Idempotency-Key (Idempotent-Replayed: true).',
    registers: [registry],
  });
  const idemConflicts = new Counter({
    name: 'idempotency_conflicts_total',
    help: 'Idempotency-Key conflicts (409 conflict: another body, or the first request still executing).',
    registers: [registry],
  });
  const deliveries = new Counter({
    name: 'webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts, by outcome (delivered, retry: failed and rescheduled, failed: given up, error: not processed).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const queries = new BucketHistogram({
    name: 'store_query_duration_seconds',
    help: 'Statements the store ran, as the client timed them (pool queue and network included), by result.',
    labelNames: ['result'],
    buckets: QUERY_BUCKETS,
  }).registerIn(registry);
  let outbox: OutboxProbe | undefined;
  new Gauge({
    name: 'webhook_outbox_depth',
    help: 'Webhook outbox rows by status (pending: waiting for delivery or retry).',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      if (!outbox) return;
      this.reset();
      const depth = await outbox.depth();
      for (const status of ['pending', 'delivered', 'failed']) this.set({ status }, depth[status] ?? 0);
    },
  });
  new Gauge({
    name: 'webhook_oldest_undelivered_age_seconds',
    help: 'Age of the oldest event still waiting in the outbox (0 when none waits).',
    registers: [registry],
    async collect() {
      if (outbox) this.set(await outbox.oldestPendingAgeSeconds());
    },
  });
  // Each operation's series by status class (index 1 to 5), found without building a key string.
  const perRequest = new Map<string, HistogramSeries[]>();
  const queryOk = queries.series('ok');
  const queryFailed = queries.series('error');
  return {
    registry,
    request({ operationId, status, seconds }) {
      let byClass = perRequest.get(operationId);
      if (!byClass) perRequest.set(operationId, (byClass = []));
      const cls = Math.floor(status / 100);
      let series = byClass[cls];
      if (!series) series = byClass[cls] = duration.series(operationId, statusClass(status));
      series.observe(seconds);
    },
    rateLimited: (className) => rateLimited.inc({ class: className }),
    replayRefused: () => replays.inc(),
    idempotencyReplayed: () => idemReplays.inc(),
    idempotencyConflict: () => idemConflicts.inc(),
    deliveryAttempt: (outcome) => deliveries.inc({ outcome }),
    storeQuery: (seconds, failed) => (failed ? queryFailed : queryOk).observe(seconds),
    watchOutbox(probe) {
      outbox = probe;
    },
  };
}
