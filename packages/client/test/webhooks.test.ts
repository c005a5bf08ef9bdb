// verifyWebhook against signatures made by the reference `standardwebhooks` package (the server's
// real webhooks are verified in the end-to-end tests).
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { Gengate, verifyWebhook, WebhookVerificationError } from '../src/index.js';

const secret = `whsec_${randomBytes(24).toString('base64')}`;
const other = `whsec_${randomBytes(24).toString('base64')}`;
const body = JSON.stringify({
  task_id: '0b6c9a4e-1f7d-4a3b-9c2e-5d8f7a6b4c3d',
  status: 'completed',
  result: { image_url: 'https://gen.example/objects/a.png', width: 1024, height: 1024 },
});

function signed(options: { at?: Date; payload?: string; secrets?: string[] } = {}) {
  const at = options.at ?? new Date();
  const id = 'msg_5f0c3d9a6b1e4c2f8a7d9e0b1c2d3e4f';
  const signatures = (options.secrets ?? [secret])
    .map((s) => new Webhook(s).sign(id, at, options.payload ?? body))
    .join(' ');
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatures,
  };
}

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: unknown) => e,
  );

describe('verifyWebhook', () => {
  it('accepts what standardwebhooks signs and answers the typed event', async () => {
    const event = await verifyWebhook(body, signed(), secret);
    expect(event).toEqual(JSON.parse(body));
    if (event.status === 'completed') expect(event.result.image_url).toContain('/objects/');
    // The same through the client method, with a Headers object and the body as bytes.
    const viaClient = await new Gengate({ apiKey: 'unused' }).verifyWebhook(
      new TextEncoder().encode(body),
      new Headers(signed()),
      secret,
    );
    expect(viaClient).toEqual(event);
  });

  it("takes Node's header records: any case, arrays joined", async () => {
    const headers = signed();
    const nodeStyle = {
      'Webhook-Id': headers['webhook-id'],
      'WEBHOOK-TIMESTAMP': [headers['webhook-timestamp']],
      'webhook-signature': headers['webhook-signature'],
      'content-type': 'application/json',
    };
    await expect(verifyWebhook(body, nodeStyle, secret)).resolves.toMatchObject({ status: 'completed' });
  });

  it('during a secret rotation, either signature verifies', async () => {
    const headers = signed({ secrets: [other, secret] });
    await expect(verifyWebhook(body, headers, secret)).resolves.toBeTruthy();
    await expect(verifyWebhook(body, headers, other)).resolves.toBeTruthy();
  });

  it('refuses another secret, a changed body, a changed id, and missing headers', async () => {
    const headers = signed();
    expect(await rejection(verifyWebhook(body, headers, other))).toBeInstanceOf(WebhookVerificationError);
    expect(await rejection(verifyWebhook(body.replace('1024', '1025'), headers, secret))).toBeInstanceOf(
      WebhookVerificationError,
    );
    expect(
      await rejection(verifyWebhook(body, { ...headers, 'webhook-id': 'msg_other' }, secret)),
    ).toBeInstanceOf(WebhookVerificationError);
    const { 'webhook-signature': _, ...unsigned } = headers;
    expect(await rejection(verifyWebhook(body, unsigned, secret))).toBeInstanceOf(WebhookVerificationError);
    expect(
      await rejection(verifyWebhook(body, { ...headers, 'webhook-signature': 'v2,abc v1,!!!' }, secret)),
    ).toBeInstanceOf(WebhookVerificationError);
  });

  it('refuses a timestamp outside the tolerance (5 minutes by default), either way', async () => {
    const old = signed({ at: new Date(Date.now() - 6 * 60_000) });
    await expect(verifyWebhook(body, old, secret)).rejects.toThrow('Message timestamp too old');
    const future = signed({ at: new Date(Date.now() + 6 * 60_000) });
    await expect(verifyWebhook(body, future, secret)).rejects.toThrow('Message timestamp too new');
    await expect(verifyWebhook(body, old, secret, { toleranceSeconds: 600 })).resolves.toBeTruthy();
    await expect(verifyWebhook(body, { ...signed(), 'webhook-timestamp': '12e9' }, secret)).rejects.toThrow(
      'Invalid webhook-timestamp',
    );
  });

  it('the secret may be given without its whsec_ prefix; a secret that is not base64 is refused', async () => {
    await expect(verifyWebhook(body, signed(), secret.slice('whsec_'.length))).resolves.toBeTruthy();
    await expect(verifyWebhook(body, signed(), 'whsec_***')).rejects.toBeInstanceOf(WebhookVerificationError);
  });
});
