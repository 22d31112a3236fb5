// Request rate and latency per route, counted in plain arrays and rendered as
// Prometheus metrics only when scraped. prom-client's labelled counter and
// histogram hash their label objects on every observation; the request path
// pays a map lookup and a few additions instead.
import type { Registry } from 'prom-client';

interface RouteSeries {
  method: string;
  route: string;
  byStatus: Map<number, number>;
  /** Observations at or below each bucket's bound (not cumulative; summed on export). */
  buckets: Float64Array;
  sum: number;
  count: number;
}

interface Sample {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

/** What prom-client's registry reads from a metric it exposes. */
interface ExposedMetric {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  get(): Promise<{ name: string; help: string; type: string; values: Sample[]; aggregator: 'sum' }>;
  reset(): void;
}

export class RequestMetrics {
  private series = new Map<string, RouteSeries>();

  constructor(
    registry: Registry,
    private readonly bounds: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    names = { requests: 'http_requests_total', duration: 'http_request_duration_seconds' },
  ) {
    const exposed = (name: string, help: string, type: ExposedMetric['type'], values: () => Sample[]): ExposedMetric => ({
      name,
      help,
      type,
      aggregator: 'sum',
      get: async () => ({ name, help, type, values: values(), aggregator: 'sum' }),
      reset: () => this.reset(),
    });
    registry.registerMetric(
      exposed(names.requests, 'HTTP requests answered, by method, route pattern and status', 'counter', () => this.requestSamples()) as never,
    );
    registry.registerMetric(
      exposed(names.duration, 'Time to answer an HTTP request, by method and route pattern', 'histogram', () => this.durationSamples()) as never,
    );
  }

  /** One answered request: its method, route pattern (never the raw URL), status and duration in seconds. */
  record(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${route}`;
    let s = this.series.get(key);
    if (!s) {
      s = { method, route, byStatus: new Map(), buckets: new Float64Array(this.bounds.length), sum: 0, count: 0 };
      this.series.set(key, s);
    }
    s.byStatus.set(status, (s.byStatus.get(status) ?? 0) + 1);
    const i = this.bounds.findIndex((b) => seconds <= b);
    if (i >= 0) s.buckets[i] += 1;
    s.sum += seconds;
    s.count += 1;
  }

  reset(): void {
    this.series = new Map();
  }

  private requestSamples(): Sample[] {
    const out: Sample[] = [];
    for (const s of this.series.values()) {
      for (const [status, n] of s.byStatus) out.push({ labels: { method: s.method, route: s.route, status: String(status) }, value: n });
    }
    return out;
  }

  private durationSamples(): Sample[] {
    const out: Sample[] = [];
    const name = 'http_request_duration_seconds';
    for (const s of this.series.values()) {
      const labels = { method: s.method, route: s.route };
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += s.buckets[i];
        out.push({ labels: { le: bound, ...labels }, value: cumulative, metricName: `${name}_bucket` });
      });
      out.push({ labels: { le: '+Inf', ...labels }, value: s.count, metricName: `${name}_bucket` });
      out.push({ labels, value: s.sum, metricName: `${name}_sum` });
      out.push({ labels, value: s.count, metricName: `${name}_count` });
    }
    return out;
  }
}
