// Telegram Login Widget payloads, checked as Telegram documents
// (https://core.telegram.org/widgets/login#checking-authorization): the data-check-string is every
// received field except `hash`, sorted by name, as `name=value` lines joined by "\n"; `hash` must be
// its hex HMAC-SHA-256 keyed by the SHA-256 of the bot token; `auth_date` must be recent.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** Bounds on what we accept as a payload: the widget sends about seven short fields. */
const MAX_FIELDS = 20;
const MAX_VALUE_LENGTH = 2048;

export type TelegramLoginResult =
  | { ok: true; telegramId: number; username?: string; firstName?: string }
  | { ok: false; reason: 'missing_fields' | 'bad_hash' | 'expired' | 'from_future' };

/**
 * Every received field, as Telegram's check requires (a field it adds later stays verifiable; a
 * parameter someone appends makes the hash fail). Undefined when the payload is out of bounds.
 */
export function telegramFields(source: URLSearchParams): Record<string, string> | undefined {
  // No prototype: a field named `__proto__` or `constructor` is kept (and so fails the hash) like any other.
  const fields: Record<string, string> = Object.create(null);
  let count = 0;
  for (const [name, value] of source) {
    if (++count > MAX_FIELDS || value.length > MAX_VALUE_LENGTH || Object.hasOwn(fields, name))
      return undefined;
    if (!/^[a-z_]{1,32}$/.test(name)) return undefined;
    fields[name] = value;
  }
  return fields;
}

export function dataCheckString(fields: Record<string, string>): string {
  return Object.keys(fields)
    .filter((name) => name !== 'hash')
    .sort()
    .map((name) => `${name}=${fields[name]}`)
    .join('\n');
}

export function signTelegramLogin(fields: Record<string, string>, botToken: string): string {
  const secret = createHash('sha256').update(botToken).digest();
  return createHmac('sha256', secret).update(dataCheckString(fields)).digest('hex');
}

/** Allowed clock skew for an auth_date slightly ahead of ours. */
const FUTURE_SKEW_SECONDS = 60;

export function verifyTelegramLogin(
  fields: Record<string, string>,
  botToken: string,
  nowMs: number,
  maxAgeSeconds: number,
): TelegramLoginResult {
  const { id, auth_date: authDate, hash } = fields;
  if (
    !id ||
    !authDate ||
    !hash ||
    !/^\d{1,20}$/.test(id) ||
    !/^\d{1,12}$/.test(authDate) ||
    !/^[0-9a-f]{64}$/.test(hash)
  ) {
    return { ok: false, reason: 'missing_fields' };
  }
  const expected = Buffer.from(signTelegramLogin(fields, botToken), 'hex');
  if (!timingSafeEqual(expected, Buffer.from(hash, 'hex'))) return { ok: false, reason: 'bad_hash' };
  const age = nowMs / 1000 - Number(authDate);
  if (age > maxAgeSeconds) return { ok: false, reason: 'expired' };
  if (age < -FUTURE_SKEW_SECONDS) return { ok: false, reason: 'from_future' };
  return { ok: true, telegramId: Number(id), username: fields.username, firstName: fields.first_name };
}
