import { Webhook } from 'standardwebhooks';
import type { Agent } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateWebhookSecret } from '../../domain/webhooks/secret.js';
import { type Receiver, startReceiver } from '../../testing/webhook-receiver.js';
import { createEgressAgent } from './egress.js';
import { sendWebhook } from './sender.js';

const TIMEOUT_MS = 300;

describe('one webhook attempt against a real receiver', () => {
  let receiver: Receiver;
  let agent: Agent;
  const secret = generateWebhookSecret();
  const message = (path = '/hook') => ({
    id: 'msg_0123',
    url: `${receiver.url}${path}`,
    payload: JSON.stringify({
      task_id: '9b2f',
      status: 'completed',
      result: { image_url: 'http://x/i.png' },
    }),
    secrets: [secret],
  });

  beforeAll(async () => {
    receiver = await startReceiver();
    agent = createEgressAgent({ allowPrivate: true, connectTimeoutMs: TIMEOUT_MS });
  });
  afterEach(() => {
    receiver.requests.length = 0;
  });
  afterAll(async () => {
    await agent.close();
    await receiver.close();
  });

  it('POSTs the JSON payload with Standard Webhooks headers that verify, and a 2xx succeeds', async () => {
    receiver.respond = () => ({ status: 204 });
    const outcome = await sendWebhook(agent, message('/hook?source=gengate'), TIMEOUT_MS, Date.now());
    expect(outcome).toEqual({ ok: true, statusCode: 204 });
    const [request] = receiver.requests;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/hook?source=gengate');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['webhook-id']).toBe('msg_0123');
    const verified = new Webhook(secret).verify(request.body, request.headers as Record<string, string>);
    expect(verified).toEqual({
      task_id: '9b2f',
      status: 'completed',
      result: { image_url: 'http://x/i.png' },
    });
  });

  it('counts any 2xx as success and ignores a large body', async () => {
    receiver.respond = () => ({ status: 299, body: Buffer.alloc(2 * 1024 * 1024, 97) });
    expect(await sendWebhook(agent, message(), TIMEOUT_MS, Date.now())).toEqual({
      ok: true,
      statusCode: 299,
    });
  });

  it('counts a 500 as a failed attempt', async () => {
    receiver.respond = () => ({ status: 500, body: 'boom' });
    expect(await sendWebhook(agent, message(), TIMEOUT_MS, Date.now())).toEqual({
      ok: false,
      statusCode: 500,
      error: 'HTTP 500',
    });
  });

  it('counts a 302 as a failed attempt and never requests its Location', async () => {
    receiver.respond = (request) =>
      request.path === '/hook'
        ? { status: 302, headers: { location: `${receiver.url}/elsewhere` } }
        : { status: 200 };
    expect(await sendWebhook(agent, message(), TIMEOUT_MS, Date.now())).toEqual({
      ok: false,
      statusCode: 302,
      error: 'HTTP 302',
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(receiver.requests.map((r) => r.path)).toEqual(['/hook']);
  });

  it('counts no answer within the timeout as a failed attempt', async () => {
    receiver.respond = () => ({ status: 200, delayMs: TIMEOUT_MS * 4 });
    const started = Date.now();
    const outcome = await sendWebhook(agent, message(), TIMEOUT_MS, Date.now());
    expect(outcome).toEqual({ ok: false, statusCode: null, error: `no answer within ${TIMEOUT_MS} ms` });
    expect(receiver.requests).toHaveLength(1);
    // The attempt ended at its deadline, not when the receiver finally answered.
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS * 4);
  });

  it('counts a refused connection as a failed attempt', async () => {
    const closed = await startReceiver();
    const url = closed.url;
    await closed.close();
    const outcome = await sendWebhook(agent, { ...message(), url: `${url}/hook` }, TIMEOUT_MS, Date.now());
    expect(outcome).toMatchObject({ ok: false, statusCode: null, error: 'network error: ECONNREFUSED' });
  });
});
