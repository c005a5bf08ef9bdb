import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createTestApp, type TestApp } from '../../../testing/app.js';

describe('GET /metrics', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(async () => app.dispose());

  it('serves Prometheus text without a key: Node default metrics and the webhook counter by outcome', async () => {
    app.ctx.metrics.webhookDeliveries.inc({ outcome: 'failed_attempt' }, 2);
    const res = await app.http.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.body).toContain('# TYPE process_cpu_user_seconds_total counter');
    expect(res.body).toContain('# TYPE gengate_webhook_deliveries_total counter');
    expect(res.body).toContain('gengate_webhook_deliveries_total{outcome="failed_attempt"} 2');
  });

  it('keeps answering in maintenance mode', async () => {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    expect(
      (
        await app.http.inject({
          method: 'PUT',
          url: '/admin/maintenance',
          headers: admin,
          payload: { enabled: true },
        })
      ).statusCode,
    ).toBe(200);
    try {
      expect((await app.http.inject({ method: 'GET', url: '/me/balance' })).statusCode).toBe(503);
      expect((await app.http.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(200);
    } finally {
      await app.http.inject({
        method: 'PUT',
        url: '/admin/maintenance',
        headers: admin,
        payload: { enabled: false },
      });
    }
  });

  it('gives every app its own registry, so one process can host several test apps', async () => {
    const other = await createTestApp();
    try {
      const body = (await other.http.inject({ method: 'GET', url: '/metrics' })).body;
      expect(body).not.toContain('gengate_webhook_deliveries_total{outcome="failed_attempt"} 2');
      expect(body).toContain('# TYPE process_cpu_user_seconds_total counter');
    } finally {
      await other.dispose();
    }
  });
});
