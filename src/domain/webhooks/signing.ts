// Standard Webhooks signing (https://www.standardwebhooks.com): the signed content is
// "<webhook-id>.<webhook-timestamp>.<body>", HMAC-SHA256 keyed with the base64-decoded part of the
// "whsec_" secret, sent as "v1,<base64>". Several space-separated signatures let a receiver keep
// verifying with the previous secret during a rotation's grace period.
import { createHmac } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

export interface AccountSecrets {
  webhook_secret: string;
  webhook_secret_previous: string | null;
  webhook_secret_previous_until: number | null;
}

export interface WebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new Error('webhook secret is empty');
  return key;
}

/** One `v1,<base64>` signature of the message. */
export function signWebhook(secret: string, id: string, timestampSec: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret))
    .update(`${id}.${timestampSec}.${body}`)
    .digest('base64');
  return `v1,${mac}`;
}

/** The secrets to sign with at `now`: the current one, plus the previous one while its grace lasts. */
export function signingSecrets(account: AccountSecrets, now: number): string[] {
  const { webhook_secret_previous: previous, webhook_secret_previous_until: until } = account;
  return previous && until !== null && now < until
    ? [account.webhook_secret, previous]
    : [account.webhook_secret];
}

/** The three Standard Webhooks headers of one attempt; the timestamp is fresh on every attempt. */
export function webhookHeaders(id: string, body: string, secrets: string[], now: number): WebhookHeaders {
  const timestampSec = Math.floor(now / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSec),
    'webhook-signature': secrets.map((secret) => signWebhook(secret, id, timestampSec, body)).join(' '),
  };
}
