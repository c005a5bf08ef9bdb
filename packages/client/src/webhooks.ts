// Standard Webhooks verification (https://www.standardwebhooks.com), written once with Web Crypto so
// it runs wherever fetch does: the signature is base64(HMAC-SHA256(key, "<id>.<timestamp>.<body>"))
// where the key is the base64 part of the secret after `whsec_`. A request is accepted when any of
// its space-separated `v1,<sig>` signatures matches (two during a secret rotation) and its timestamp
// is within the tolerance. crypto.subtle.verify compares in constant time.
import { WebhookVerificationError } from './errors.js';
import type { WebhookEvent } from './types.js';

export interface VerifyWebhookOptions {
  /** Largest accepted distance between the webhook-timestamp and now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The current time in ms (tests). */
  now?: number;
}

/** Header lookup over a Headers object or Node's IncomingHttpHeaders-like record. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

const SECRET_PREFIX = 'whsec_';
const encoder = new TextEncoder();

/**
 * Checks a webhook request and answers its typed event. `rawBody` must be the bytes as received
 * (re-serialised JSON does not match the signature). Throws WebhookVerificationError otherwise.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError('Missing webhook-id, webhook-timestamp or webhook-signature header');
  }
  checkTimestamp(timestamp, options);
  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  const key = await crypto.subtle.importKey(
    'raw',
    secretBytes(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['verify'],
  );
  const signed = encoder.encode(`${id}.${timestamp}.${body}`);
  for (const candidate of signatures.split(' ')) {
    const [version, signature] = candidate.split(',', 2);
    if (version !== 'v1' || !signature) continue;
    const expected = base64Bytes(signature);
    if (expected && (await crypto.subtle.verify('HMAC', key, expected, signed))) return parseEvent(body);
  }
  throw new WebhookVerificationError('No matching webhook signature');
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(' ') : value;
}

function checkTimestamp(timestamp: string, options: VerifyWebhookOptions): void {
  const seconds = /^\d+$/.test(timestamp) ? Number(timestamp) : Number.NaN;
  if (!Number.isSafeInteger(seconds)) throw new WebhookVerificationError('Invalid webhook-timestamp');
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  const tolerance = options.toleranceSeconds ?? 300;
  if (seconds < now - tolerance) throw new WebhookVerificationError('Message timestamp too old');
  if (seconds > now + tolerance) throw new WebhookVerificationError('Message timestamp too new');
}

function secretBytes(secret: string): Uint8Array<ArrayBuffer> {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const bytes = base64Bytes(encoded);
  if (!bytes || bytes.length === 0) throw new WebhookVerificationError('The webhook secret is not base64');
  return bytes;
}

function base64Bytes(value: string): Uint8Array<ArrayBuffer> | undefined {
  try {
    const binary = atob(value);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  } catch {
    return undefined;
  }
}

function parseEvent(body: string): WebhookEvent {
  try {
    return JSON.parse(body) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('The webhook body is not JSON');
  }
}
