// SSRF at delivery time, with the allowlist OFF: the egress refuses a non-public address at the
// moment of connecting, whether it comes from the URL itself or from DNS, even when the name was
// public when the task was created (DNS rebinding). Each case aims at a real loopback receiver, which
// must not even see a TCP connection.
import type { Agent } from 'undici';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateWebhookSecret } from '../../domain/webhooks/secret.js';
import { type Receiver, startReceiver } from '../../testing/webhook-receiver.js';
import { createEgressAgent } from './egress.js';
import { sendWebhook } from './sender.js';
import { assertWebhookTargetAllowed, type ResolveHost } from './target-policy.js';

const TIMEOUT_MS = 1_000;
const PUBLIC = '93.184.216.34';

describe('webhook egress with WEBHOOK_ALLOW_PRIVATE=false', () => {
  let v4: Receiver;
  let v6: Receiver;
  const agents: Agent[] = [];
  const agent = (resolve?: ResolveHost) => {
    const created = createEgressAgent({ allowPrivate: false, connectTimeoutMs: TIMEOUT_MS, resolve });
    agents.push(created);
    return created;
  };
  const send = (dispatcher: Agent, url: string) =>
    sendWebhook(
      dispatcher,
      { id: 'msg_ssrf', url, payload: '{}', secrets: [generateWebhookSecret()] },
      TIMEOUT_MS,
      Date.now(),
    );

  beforeAll(async () => {
    v4 = await startReceiver();
    v6 = await startReceiver(undefined, '::1');
  });
  beforeEach(() => {
    v4.connections = 0;
    v6.connections = 0;
  });
  afterEach(async () => {
    await Promise.all(agents.splice(0).map((a) => a.close()));
    expect(v4.connections).toBe(0);
    expect(v6.connections).toBe(0);
  });
  afterAll(async () => {
    await v4.close();
    await v6.close();
  });

  it.each([
    ['127.0.0.1', () => `http://127.0.0.1:${v4.port}/hook`, '127.0.0.1'],
    ['[::1]', () => `http://[::1]:${v6.port}/hook`, '::1'],
    ['[::ffff:127.0.0.1]', () => `http://[::ffff:127.0.0.1]:${v4.port}/hook`, '::ffff:7f00:1'],
    ['localhost (resolves to loopback)', () => `http://localhost:${v4.port}/hook`, '127.0.0.1'],
  ])('refuses %s before connecting', async (_name, url, address) => {
    expect(await send(agent(), url())).toEqual({
      ok: false,
      statusCode: null,
      error: `target address ${address} is not allowed`,
    });
  });

  it('refuses a name that resolved to a public address at creation and to loopback at delivery (DNS rebinding)', async () => {
    const answers = [[PUBLIC], ['127.0.0.1']];
    const rebinding: ResolveHost = async () => answers.shift() ?? ['127.0.0.1'];
    const url = `http://rebind.example:${v4.port}/hook`;

    await expect(assertWebhookTargetAllowed(url, false, rebinding)).resolves.toBeUndefined();
    expect(await send(agent(rebinding), url)).toEqual({
      ok: false,
      statusCode: null,
      error: 'target address 127.0.0.1 is not allowed',
    });
    expect(answers).toHaveLength(0);
  });

  it('refuses a name whose answers mix a public and a private address', async () => {
    const mixed: ResolveHost = async () => [PUBLIC, '10.0.0.1', '127.0.0.1'];
    expect(await send(agent(mixed), `http://mixed.example:${v4.port}/hook`)).toEqual({
      ok: false,
      statusCode: null,
      error: 'target address 10.0.0.1 is not allowed',
    });
  });

  it('fails the attempt when the name does not resolve', async () => {
    const nxdomain: ResolveHost = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.invalid'), { code: 'ENOTFOUND' });
    };
    expect(await send(agent(nxdomain), `http://nowhere.invalid:${v4.port}/hook`)).toEqual({
      ok: false,
      statusCode: null,
      error: 'network error: ENOTFOUND',
    });
  });
});

describe('webhook egress with WEBHOOK_ALLOW_PRIVATE=true', () => {
  it('delivers to loopback, for development and tests', async () => {
    const receiver = await startReceiver();
    const dispatcher = createEgressAgent({ allowPrivate: true, connectTimeoutMs: TIMEOUT_MS });
    try {
      const outcome = await sendWebhook(
        dispatcher,
        { id: 'msg_dev', url: `${receiver.url}/hook`, payload: '{}', secrets: [generateWebhookSecret()] },
        TIMEOUT_MS,
        Date.now(),
      );
      expect(outcome).toEqual({ ok: true, statusCode: 200 });
      expect(receiver.requests).toHaveLength(1);
    } finally {
      await dispatcher.close();
      await receiver.close();
    }
  });
});
