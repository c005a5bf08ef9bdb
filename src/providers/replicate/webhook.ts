// Replicate signs webhooks the Standard Webhooks way: `webhook-id`, `webhook-timestamp` (seconds)
// and `webhook-signature` ("v1,<base64>" entries, space-separated), an HMAC-SHA256 over
// `${id}.${timestamp}.${rawBody}` keyed by the base64 secret after its `whsec_` prefix.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Older (or further in the future) than this, a delivery is refused as a possible replay. */
export const WEBHOOK_TOLERANCE_MS = 5 * 60 * 1000;

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The `webhook-signature` value for a body (the fake signs with it; tests forge around it). */
export function signWebhook(
  secret: string,
  id: string,
  timestampSec: number | string,
  rawBody: Buffer | string,
): string {
  const digest = createHmac('sha256', keyOf(secret))
    .update(`${id}.${timestampSec}.`)
    .update(rawBody)
    .digest('base64');
  return `v1,${digest}`;
}

export function verifyWebhook(
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  rawBody: Buffer,
  nowMs: number,
): boolean {
  const id = first(headers['webhook-id']);
  const timestamp = first(headers['webhook-timestamp']);
  const signatures = first(headers['webhook-signature']);
  if (!id || !timestamp || !signatures || !/^\d+$/.test(timestamp)) return false;
  if (Math.abs(nowMs - Number(timestamp) * 1000) > WEBHOOK_TOLERANCE_MS) return false;
  const expected = Buffer.from(signWebhook(secret, id, timestamp, rawBody).slice(3), 'base64');
  return signatures.split(' ').some((entry) => {
    const [version, value] = entry.split(',', 2);
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
