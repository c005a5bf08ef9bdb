import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { generateWebhookSecret } from './secret.js';
import { signingSecrets, signWebhook, webhookHeaders } from './signing.js';

describe('Standard Webhooks signing', () => {
  it('produces exactly the signature of the reference library', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 24, maxLength: 64 }),
        fc.string(),
        fc.integer({ min: 0, max: 4_000_000_000 }),
        (key, body, ts) => {
          const secret = `whsec_${Buffer.from(key).toString('base64')}`;
          expect(signWebhook(secret, 'msg_1', ts, body)).toBe(
            new Webhook(secret).sign('msg_1', new Date(ts * 1000), body),
          );
        },
      ),
    );
  });

  it('builds headers that the standardwebhooks verifier accepts, and rejects a changed body', () => {
    const secret = generateWebhookSecret();
    const body = JSON.stringify({
      task_id: 't',
      status: 'completed',
      result: { video_url: 'https://x/v.mp4' },
    });
    const headers = webhookHeaders('msg_abc', body, [secret], Date.now());
    expect(headers['webhook-id']).toBe('msg_abc');
    expect(headers['webhook-timestamp']).toMatch(/^\d{10}$/);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(`${body} `, { ...headers })).toThrow();
    expect(() => new Webhook(generateWebhookSecret()).verify(body, { ...headers })).toThrow();
  });

  it('signs with both secrets, space-separated, so either verifies during a rotation', () => {
    const [current, previous] = [generateWebhookSecret(), generateWebhookSecret()];
    const headers = webhookHeaders('msg_rot', '{}', [current, previous], Date.now());
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(() => new Webhook(current).verify('{}', { ...headers })).not.toThrow();
    expect(() => new Webhook(previous).verify('{}', { ...headers })).not.toThrow();
  });

  it('uses the previous secret only until its grace period ends', () => {
    const account = {
      webhook_secret: 'whsec_new',
      webhook_secret_previous: 'whsec_old',
      webhook_secret_previous_until: 1_000,
    };
    expect(signingSecrets(account, 999)).toEqual(['whsec_new', 'whsec_old']);
    expect(signingSecrets(account, 1_000)).toEqual(['whsec_new']);
    expect(
      signingSecrets({ ...account, webhook_secret_previous: null, webhook_secret_previous_until: null }, 0),
    ).toEqual(['whsec_new']);
  });

  it('keys the HMAC with the decoded secret, not its text', () => {
    const raw = randomBytes(32);
    const secret = `whsec_${raw.toString('base64')}`;
    expect(signWebhook(secret, 'a', 1, 'b')).toBe(
      new Webhook(raw, { format: 'raw' }).sign('a', new Date(1000), 'b'),
    );
  });
});
