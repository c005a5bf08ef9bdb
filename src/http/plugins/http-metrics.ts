// Counts every answered request and its duration by route pattern, method and status code. It sits
// on the chat path that is benchmarked, so recording allocates nothing per request: each route gets
// its own onResponse hook (added when the route is registered) that knows its pattern and keeps its
// series per status code; a lookup in a small Map finds them. Requests that matched no route are
// counted under route "unmatched", never under their raw URL.
import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler } from 'fastify';
import type { Metrics } from '../../services/metrics.js';
import type { CounterSeries, HistogramSeries } from '../../services/metrics-series.js';

const UNMATCHED = 'unmatched';
/** Methods Node's parser accepts beyond these are rare; an unmatched one is counted as OTHER. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

interface StatusSeries {
  requests: CounterSeries;
  duration: HistogramSeries;
}

/** The series of one route and method, by status code. */
class RouteSeries {
  private readonly byStatus = new Map<number, StatusSeries>();

  constructor(
    private readonly metrics: Metrics,
    private readonly route: string,
    private readonly method: string,
  ) {}

  record(statusCode: number, elapsedMs: number): void {
    let series = this.byStatus.get(statusCode);
    if (series === undefined) {
      const status = String(statusCode);
      series = {
        requests: this.metrics.httpRequests.labels(this.route, this.method, status),
        duration: this.metrics.httpDuration.labels(this.route, this.method, status),
      };
      this.byStatus.set(statusCode, series);
    }
    series.requests.inc();
    series.duration.observe(elapsedMs / 1000);
  }
}

/** The series of one route pattern across its methods (a route may serve several). */
class MethodSeries {
  private readonly byMethod = new Map<string, RouteSeries>();

  constructor(
    private readonly metrics: Metrics,
    private readonly route: string,
    private readonly allowed: ((method: string) => boolean) | undefined,
  ) {}

  of(method: string): RouteSeries {
    let series = this.byMethod.get(method);
    if (series === undefined) {
      const label = this.allowed === undefined || this.allowed(method) ? method : 'OTHER';
      series = this.byMethod.get(label) ?? new RouteSeries(this.metrics, this.route, label);
      this.byMethod.set(method, series);
    }
    return series;
  }
}

/** Register before the routes: the hooks are attached as each route is added. */
export function registerHttpMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const only = methods.length === 1 ? new RouteSeries(metrics, route.url, methods[0]) : undefined;
    const several = only ? undefined : new MethodSeries(metrics, route.url, (m) => methods.includes(m));
    const hook: onResponseHookHandler = (request: FastifyRequest, reply: FastifyReply, done) => {
      (only ?? (several as MethodSeries).of(request.method)).record(reply.statusCode, reply.elapsedTime);
      done();
    };
    const existing = route.onResponse;
    route.onResponse =
      existing === undefined ? [hook] : [...(Array.isArray(existing) ? existing : [existing]), hook];
  });

  // The not-found handler gets no onRoute: a global hook counts its answers (only those).
  const unmatched = new MethodSeries(metrics, UNMATCHED, (m) => KNOWN_METHODS.has(m));
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) unmatched.of(request.method).record(reply.statusCode, reply.elapsedTime);
    done();
  });
}
