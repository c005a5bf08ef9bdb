// A second listener for scrapers and probes, on METRICS_PORT: GET /metrics and GET /healthz only. A
// process of the worker role serves no API, so this is how Prometheus reaches its metrics; an API
// process may use it too, to keep /metrics off the public port. Plain node:http: nothing of the
// API's pipeline (keys, rate limits, maintenance) applies here. With METRICS_TOKEN set, /metrics
// wants it as a bearer token here too; /healthz never does (container health checks).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppError, errorBody } from '../domain/errors.js';
import type { Metrics } from '../services/metrics.js';
import { METRICS_CHALLENGE, metricsTokenGiven } from './metrics-access.js';

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

async function answer(
  metrics: Metrics,
  token: string | undefined,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const path = (req.url ?? '').split('?', 1)[0];
  if (
    req.method === 'GET' &&
    path === '/metrics' &&
    token &&
    !metricsTokenGiven(req.headers.authorization, token)
  ) {
    sendJson(res, 401, errorBody(new AppError('invalid_api_key', 'Invalid metrics token')), {
      'www-authenticate': METRICS_CHALLENGE,
    });
  } else if (req.method === 'GET' && path === '/metrics') {
    const { contentType, body } = await metrics.render();
    res.writeHead(200, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
    res.end(body);
  } else if (req.method === 'GET' && path === '/healthz') {
    sendJson(res, 200, { status: 'ok' });
  } else {
    sendJson(
      res,
      404,
      errorBody(new AppError('not_found', 'Only GET /metrics and GET /healthz are served here')),
    );
  }
}

export async function startMetricsServer(
  metrics: Metrics,
  host: string,
  port: number,
  /** METRICS_TOKEN: required on GET /metrics when set. */
  token?: string,
): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    answer(metrics, token, req, res).catch(() => {
      if (!res.headersSent) sendJson(res, 500, errorBody(new AppError('internal_error')));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
