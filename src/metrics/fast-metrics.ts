import type { Registry } from 'prom-client';

/**
 * A histogram for the site router's hot path: an observation is a short scan of the
 * bucket bounds and two additions into typed arrays. prom-client's own Histogram and
 * Counter cost about 25 % of a cached site answer (label hashing and objects on every
 * call, measured in bench:serve); this one is read only when /metrics is scraped,
 * through prom-client's registry, in prom-client's own output format.
 */
export class FastHistogram {
  private readonly counts: Float64Array;
  private sum = 0;
  private count = 0;

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
    registry: Registry,
  ) {
    this.counts = new Float64Array(bounds.length);
    registry.registerMetric(this.asMetric() as never);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]) i++;
    if (i < bounds.length) this.counts[i]++;
    this.sum += value;
    this.count++;
  }

  private asMetric() {
    const get = async () => {
      const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
      let cumulative = 0;
      this.bounds.forEach((le, i) => {
        cumulative += this.counts[i];
        values.push({ labels: { le }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { le: '+Inf' }, value: this.count, metricName: `${this.name}_bucket` });
      values.push({ labels: {}, value: this.sum, metricName: `${this.name}_sum` });
      values.push({ labels: {}, value: this.count, metricName: `${this.name}_count` });
      return { name: this.name, help: this.help, type: 'histogram', values, aggregator: 'sum' };
    };
    return { name: this.name, help: this.help, type: 'histogram', aggregator: 'sum', get, reset: () => undefined };
  }
}

/** Counters by one label with a fixed set of values, read only when scraped. */
export class FastCounter {
  private readonly values: Float64Array;

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly label: string | undefined,
    private readonly labelValues: readonly string[],
    registry: Registry,
  ) {
    this.values = new Float64Array(Math.max(1, labelValues.length));
    registry.registerMetric({
      name,
      help,
      type: 'counter',
      aggregator: 'sum',
      reset: () => undefined,
      get: async () => ({
        name,
        help,
        type: 'counter',
        aggregator: 'sum',
        values: label ? labelValues.map((v, i) => ({ labels: { [label]: v }, value: this.values[i] })) : [{ labels: {}, value: this.values[0] }],
      }),
    } as never);
  }

  /** `index` into the label values given at construction (0 when there is no label). */
  inc(index = 0): void {
    this.values[index]++;
  }
}
