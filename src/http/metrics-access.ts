// Who may read GET /metrics (revenue per model, admin activity, queue sizes: not for the internet).
// With METRICS_TOKEN set, every scrape carries it as a bearer token, on both listeners. Without it,
// the API port serves /metrics only when it listens on loopback and no METRICS_PORT takes the
// scrapes: `npm start` (127.0.0.1) keeps an open /metrics for a local Prometheus, while the Docker
// image (HOST=0.0.0.0) and the compose deployment (METRICS_PORT) answer it 404 on the public port.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config.js';

/** `open`: anyone who reaches the port; `token`: Bearer METRICS_TOKEN; `off`: 404, like no route. */
export type MetricsAccess = 'open' | 'token' | 'off';

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

export function metricsOnApiPort(
  config: Pick<Config, 'host' | 'metricsPort' | 'metricsToken'>,
): MetricsAccess {
  if (config.metricsToken) return 'token';
  if (config.metricsPort !== undefined) return 'off';
  return isLoopbackHost(config.host) ? 'open' : 'off';
}

/** The METRICS_PORT listener sits on a private network: open unless a token is set. */
export function metricsOnMetricsPort(config: Pick<Config, 'metricsToken'>): MetricsAccess {
  return config.metricsToken ? 'token' : 'open';
}

/** `Authorization: Bearer <token>`, compared in constant time. */
export function metricsTokenGiven(authorization: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match) return false;
  const a = createHash('sha256').update(match[1]).digest();
  const b = createHash('sha256').update(token).digest();
  return timingSafeEqual(a, b);
}

/** The answer's WWW-Authenticate on a refused scrape (RFC 6750). */
export const METRICS_CHALLENGE = 'Bearer realm="metrics"';
