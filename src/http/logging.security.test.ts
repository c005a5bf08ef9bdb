// The JSON request logs: never a key or a secret (no headers, secret query values redacted), and
// the "request completed" line carries the request id, key id, account and model.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createTestApp, type TestApp, type TestKey } from '../testing/app.js';
import { buildHttpApp } from './server.js';

let app: TestApp;
let http: FastifyInstance;
let key: TestKey;
const lines: string[] = [];

beforeAll(async () => {
  app = await createTestApp();
  key = await app.newKey({ balanceRub: 100 });
  // The same services, served by an app that logs at info level into `lines`.
  http = await buildHttpApp({ ...app.ctx, config: { ...app.ctx.config, logLevel: 'info' } }, [], {
    logStream: { write: (line: string) => void lines.push(line) },
  });
});
afterAll(async () => {
  await http?.close();
  await app?.dispose();
});

function logged(): Record<string, unknown>[] {
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('request logs', () => {
  it('never contain the API key, the admin token or a secret query value', async () => {
    lines.length = 0;
    await http.inject({ url: '/me/balance', headers: key.auth });
    await http.inject({
      method: 'POST',
      url: '/generate',
      headers: key.auth,
      payload: { params: { model_name: 'flux-1-1-pro', prompt: 'a cat' } },
    });
    await http.inject({ url: '/me/balance', headers: { authorization: `Bearer ${key.secret}x` } }); // 401
    await http.inject({ url: '/admin/accounts', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    await http.inject({ url: '/panel/login?token=panel-login-secret-123' });
    await http.inject({ url: '/hooks/fal?task=t_1&token=callback-secret-456', method: 'POST', payload: {} });

    const text = lines.join('');
    expect(lines.length).toBeGreaterThan(6);
    expect(text).not.toContain(key.secret);
    expect(text).not.toContain(key.secret.slice(8)); // not even without its prefix
    expect(text).not.toContain(ADMIN_TOKEN);
    expect(text).not.toContain('panel-login-secret-123');
    expect(text).not.toContain('callback-secret-456');
    expect(text).not.toMatch(/authorization/i);
    expect(text).toContain('token=[redacted]');
  });

  it('puts the request id, key id, account and model on the request-completed line', async () => {
    lines.length = 0;
    const res = await http.inject({
      method: 'POST',
      url: '/generate',
      headers: { ...key.auth, 'x-request-id': 'trace-generate-1' },
      payload: { params: { model_name: 'flux-1-1-pro', prompt: 'a dog' } },
    });
    expect(res.statusCode).toBe(202);
    const chat = await http.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { ...key.auth, 'x-request-id': 'trace-chat-1' },
      payload: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(chat.headers['x-request-id']).toBe('trace-chat-1');
    await http.inject({ url: '/public/models', headers: { 'x-request-id': 'trace-public-1' } });

    const completed = (id: string) =>
      logged().find((l) => l.reqId === id && l.msg === 'request completed') as Record<string, unknown>;
    expect(completed('trace-generate-1')).toMatchObject({
      reqId: 'trace-generate-1',
      key_id: key.keyId,
      account_id: key.accountId,
      model: 'flux-1-1-pro',
      res: { statusCode: 202 },
    });
    expect(completed('trace-chat-1')).toMatchObject({
      key_id: key.keyId,
      account_id: key.accountId,
      model: 'gpt-4o-mini',
    });
    // No key on a public route: no key fields.
    expect(completed('trace-public-1')).toBeDefined();
    expect(completed('trace-public-1')).not.toHaveProperty('key_id');
    expect(completed('trace-public-1')).not.toHaveProperty('account_id');
  });

  it('writes only JSON lines', () => {
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
  });
});
