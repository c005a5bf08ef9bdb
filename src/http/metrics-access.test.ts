// Who may read GET /metrics on the API port: a bearer METRICS_TOKEN when set; otherwise open only
// on a loopback listener without METRICS_PORT (npm start), and 404 on a public one (the Docker
// image's HOST=0.0.0.0) or when METRICS_PORT takes the scrapes (the compose deployment).
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.js';
import { ADMIN_TOKEN, createTestApp, type TestApp } from '../testing/app.js';
import { isLoopbackHost, metricsOnApiPort, metricsOnMetricsPort } from './metrics-access.js';

const TOKEN = 'prometheus-scrape-token-1';
const apps: TestApp[] = [];
afterAll(async () => {
  for (const app of apps) await app.dispose();
});

async function appWith(env: Record<string, string>): Promise<TestApp> {
  const app = await createTestApp({ env });
  apps.push(app);
  return app;
}

const scrape = (app: TestApp, headers: Record<string, string> = {}) =>
  app.http.inject({ method: 'GET', url: '/metrics', headers });

describe('the metrics access policy', () => {
  it('decides by token, METRICS_PORT and the listen address', () => {
    const decide = (host: string, metricsPort?: number, metricsToken?: string) =>
      metricsOnApiPort({ host, metricsPort, metricsToken });
    expect(decide('127.0.0.1')).toBe('open');
    expect(decide('::1')).toBe('open');
    expect(decide('localhost')).toBe('open');
    expect(decide('0.0.0.0')).toBe('off');
    expect(decide('::')).toBe('off');
    expect(decide('10.0.0.5')).toBe('off');
    expect(decide('127.0.0.1', 9464)).toBe('off');
    expect(decide('0.0.0.0', undefined, TOKEN)).toBe('token');
    expect(decide('127.0.0.1', 9464, TOKEN)).toBe('token');
    expect(metricsOnMetricsPort({ metricsToken: undefined })).toBe('open');
    expect(metricsOnMetricsPort({ metricsToken: TOKEN })).toBe('token');
    expect(isLoopbackHost('127.10.0.1')).toBe(true);
    expect(isLoopbackHost('128.0.0.1')).toBe(false);
  });

  it('METRICS_TOKEN is optional, at least 16 characters and without spaces', () => {
    expect(loadConfig({}).metricsToken).toBeUndefined();
    expect(loadConfig({ METRICS_TOKEN: TOKEN }).metricsToken).toBe(TOKEN);
    for (const bad of ['short', 'a token with spaces in it'])
      expect(() => loadConfig({ METRICS_TOKEN: bad }), bad).toThrow(ConfigError);
  });
});

describe('GET /metrics on the API port', () => {
  it('is open on a loopback listener by default (npm start, the tests, the bench)', async () => {
    const app = await appWith({});
    const res = await scrape(app);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('# TYPE gengate_http_requests_total counter');
  });

  it('wants the bearer METRICS_TOKEN when set, refusing anything else with 401', async () => {
    const app = await appWith({ METRICS_TOKEN: TOKEN });
    for (const headers of [
      {} as Record<string, string>,
      { authorization: 'Bearer wrong-token-0123456789' },
      { authorization: TOKEN },
      { authorization: `Bearer ${ADMIN_TOKEN}` },
    ]) {
      const res = await scrape(app, headers);
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="metrics"');
      expect(res.json()).toMatchObject({ error: { code: 'invalid_api_key' } });
      expect(res.body).not.toContain('gengate_');
    }
    const ok = await scrape(app, { authorization: `Bearer ${TOKEN}` });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toContain('# TYPE');
    // Like /healthz, it keeps answering in maintenance mode.
    await app.ctx.maintenance.set(true);
    expect((await scrape(app, { authorization: `Bearer ${TOKEN}` })).statusCode).toBe(200);
  });

  it('answers 404 when METRICS_PORT serves the scrapes', async () => {
    const app = await appWith({ METRICS_PORT: '9464' });
    const res = await scrape(app);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ error: { code: 'not_found' } });
  });

  it('answers 404 on a public listener without a token (the Docker image: HOST=0.0.0.0)', async () => {
    const app = await appWith({ HOST: '0.0.0.0' });
    expect((await scrape(app)).statusCode).toBe(404);
    expect((await app.http.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });
});
