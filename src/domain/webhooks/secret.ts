// Standard Webhooks secrets: "whsec_" + base64 of 24 random bytes, one per account.
import { randomBytes } from 'node:crypto';

export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}
