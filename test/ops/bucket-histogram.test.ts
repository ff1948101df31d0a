// The fast histogram must expose exactly what prom-client's own Histogram exposes for the same
// observations: the same text, line for line, from the same registry code.
import fc from 'fast-check';
import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { BucketHistogram } from '../../server/ops/bucket-histogram.ts';

const BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];
const LABELS = ['operation', 'status_class'] as const;

/** Values that hit the bounds themselves, fall between them, and lie beyond the last. */
const seconds = fc.oneof(fc.constantFrom(0, ...BUCKETS), fc.double({ min: 0, max: 5, noNaN: true }));
const labelSet = fc.tuple(
  fc.constantFrom('getAvailability', 'createOrder', 'un"quoted\\'),
  fc.constantFrom('2xx', '4xx'),
);

async function texts(observations: Array<[readonly [string, string], number]>) {
  const theirs = new Registry();
  const reference = new Histogram({
    name: 'h',
    help: 'latency',
    labelNames: LABELS,
    buckets: BUCKETS,
    registers: [theirs],
  });
  const ours = new Registry();
  const fast = new BucketHistogram({ name: 'h', help: 'latency', labelNames: LABELS, buckets: BUCKETS }).registerIn(
    ours,
  );
  for (const [[operation, cls], value] of observations) {
    reference.labels(operation, cls).observe(value);
    fast.series(operation, cls).observe(value);
  }
  return { theirs: await theirs.metrics(), ours: await ours.metrics() };
}

describe('BucketHistogram', () => {
  it("exposes the same text as prom-client's Histogram for the same observations", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(labelSet, seconds), { maxLength: 60 }), async (observations) => {
        const { theirs, ours } = await texts(observations);
        expect(ours).toBe(theirs);
      }),
      { numRuns: 200 },
    );
  });

  it('counts a value equal to a bound in that bound’s bucket, and one past the last only in +Inf', async () => {
    const { ours } = await texts([
      [['getAvailability', '2xx'], 0.001],
      [['getAvailability', '2xx'], 7],
    ]);
    expect(ours).toContain('h_bucket{le="0.0005",operation="getAvailability",status_class="2xx"} 0');
    expect(ours).toContain('h_bucket{le="0.001",operation="getAvailability",status_class="2xx"} 1');
    expect(ours).toContain('h_bucket{le="1",operation="getAvailability",status_class="2xx"} 1');
    expect(ours).toContain('h_bucket{le="+Inf",operation="getAvailability",status_class="2xx"} 2');
    expect(ours).toContain('h_sum{operation="getAvailability",status_class="2xx"} 7.001');
    expect(ours).toContain('h_count{operation="getAvailability",status_class="2xx"} 2');
  });

  it('drops a value that is not a finite number instead of throwing on the request path', async () => {
    const registry = new Registry();
    const fast = new BucketHistogram({ name: 'h', help: 'h', labelNames: ['result'], buckets: [1] }).registerIn(
      registry,
    );
    const series = fast.series('ok');
    series.observe(Number.NaN);
    series.observe(Number.POSITIVE_INFINITY);
    series.observe(0.5);
    expect(series.count).toBe(1);
    expect(await registry.metrics()).toContain('h_sum{result="ok"} 0.5');
  });

  it('keeps a series its caller holds counting after the registry resets it', async () => {
    const registry = new Registry();
    const fast = new BucketHistogram({ name: 'h', help: 'h', labelNames: ['result'], buckets: [1] }).registerIn(
      registry,
    );
    const series = fast.series('ok');
    series.observe(0.5);
    registry.resetMetrics();
    series.observe(2);
    const text = await registry.metrics();
    expect(text).toContain('h_bucket{le="1",result="ok"} 0');
    expect(text).toContain('h_count{result="ok"} 1');
  });

  it('refuses what prom-client refuses: an le label, buckets out of order, the wrong number of label values', () => {
    expect(() => new BucketHistogram({ name: 'h', help: 'h', labelNames: ['le'], buckets: [1] })).toThrow(/le/);
    expect(() => new BucketHistogram({ name: 'h', help: 'h', labelNames: [], buckets: [1, 0.5] })).toThrow(/ascending/);
    const fast = new BucketHistogram({ name: 'h', help: 'h', labelNames: ['a', 'b'], buckets: [1] });
    expect(() => fast.series('x')).toThrow(/2 label values/);
  });
});
