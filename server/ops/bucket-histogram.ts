// A Prometheus histogram whose observation is an array increment, for the two observed on every
// request: the request latency (once per answer) and the store's statement latency (several per
// answer). prom-client's Histogram validates and hashes the label set and looks the bucket up by
// its bound as an object key on every observe(), 240 to 290 ns each (2,000,000 observations, three
// runs), which the ops leg's profile showed among the server's own costs (bench/README.md). Here
// a label set's series is looked up once (`series()`), and observing is a scan of at most 13
// bounds. prom-client still does the rest: the registry formats this metric's `get()` as it
// formats its own (the test holds the two texts equal for the same observations).
import type { Metric, Registry } from 'prom-client';

export interface HistogramSeries {
  /** Counts `value` (seconds). A value that is not a finite number is dropped, never thrown: it comes from a clock. */
  observe(value: number): void;
  readonly labels: Readonly<Record<string, string>>;
  /** Observations so far (the `_count` line). */
  readonly count: number;
}

class Series implements HistogramSeries {
  /** Per bucket, the observations at or below its bound and above the one before; the last is +Inf's own. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(
    readonly labels: Readonly<Record<string, string>>,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }
  clear(): void {
    this.counts.fill(0);
    this.sum = 0;
    this.count = 0;
  }
  observe(value: number): void {
    if (!Number.isFinite(value)) return;
    const bounds = this.bounds;
    let i = 0;
    // prom-client's rule: a value falls in the first bucket whose bound is >= the value.
    while (i < bounds.length && value > (bounds[i] as number)) i++;
    this.counts[i] = (this.counts[i] as number) + 1;
    this.sum += value;
    this.count++;
  }
}

/** One line of the exposition, as prom-client's own metrics give it to the registry. */
export interface ExposedValue {
  metricName: string;
  labels: Record<string, string | number>;
  value: number;
}

export interface BucketHistogramOptions {
  name: string;
  help: string;
  labelNames: readonly string[];
  /** Upper bounds in seconds, ascending (+Inf is added). */
  buckets: readonly number[];
}

export class BucketHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly name: string;
  readonly help: string;
  private readonly labelNames: readonly string[];
  private readonly bounds: readonly number[];
  private readonly bySet = new Map<string, Series>();

  constructor(options: BucketHistogramOptions) {
    const { name, help, labelNames, buckets } = options;
    if (labelNames.includes('le')) throw new Error('le is a reserved label name');
    if (
      buckets.length === 0 ||
      buckets.some((b, i) => !Number.isFinite(b) || (i > 0 && b <= (buckets[i - 1] as number)))
    )
      throw new Error(`${name}: buckets must be finite and strictly ascending`);
    this.name = name;
    this.help = help;
    this.labelNames = [...labelNames];
    this.bounds = [...buckets];
  }

  /** The series of one label set, values in `labelNames` order; the caller keeps it. */
  series(...values: string[]): HistogramSeries {
    if (values.length !== this.labelNames.length)
      throw new Error(`${this.name}: ${this.labelNames.length} label values expected, got ${values.length}`);
    const key = values.join('\u0000');
    let series = this.bySet.get(key);
    if (!series) {
      const labels: Record<string, string> = {};
      this.labelNames.forEach((name, i) => (labels[name] = values[i] as string));
      series = new Series(labels, this.bounds);
      this.bySet.set(key, series);
    }
    return series;
  }

  /** Every series so far, in the order they were first asked for. */
  all(): HistogramSeries[] {
    return [...this.bySet.values()];
  }

  /** What the registry formats: prom-client's own shape for a histogram (cumulative buckets, +Inf, _sum, _count). */
  async get(): Promise<{ name: string; help: string; type: 'histogram'; values: ExposedValue[]; aggregator: 'sum' }> {
    const values: ExposedValue[] = [];
    for (const series of this.bySet.values()) {
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += series.counts[i] as number;
        values.push({ metricName: `${this.name}_bucket`, labels: { le: bound, ...series.labels }, value: cumulative });
      });
      values.push(
        { metricName: `${this.name}_bucket`, labels: { le: '+Inf', ...series.labels }, value: series.count },
        { metricName: `${this.name}_sum`, labels: { ...series.labels }, value: series.sum },
        { metricName: `${this.name}_count`, labels: { ...series.labels }, value: series.count },
      );
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** Zeroes every series (prom-client's registry.resetMetrics()); the series callers hold stay valid. */
  reset(): void {
    for (const series of this.bySet.values()) series.clear();
  }

  /** Adds this histogram to `registry`, which formats it with its own metrics. */
  registerIn(registry: Registry): this {
    // The registry reads a metric through name, help, type, get(), reset() and aggregator, all
    // here; prom-client's type for it names only its own classes.
    registry.registerMetric(this as unknown as Metric);
    return this;
  }
}
