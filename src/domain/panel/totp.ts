// One-time passwords: HOTP (RFC 4226) and TOTP (RFC 6238) with node:crypto, base32 (RFC 4648) for
// the secret people type or scan, and the otpauth:// URI authenticator apps read.
import { createHmac } from 'node:crypto';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function base32Encode(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** Decodes base32, ignoring case, spaces and padding; undefined for any other character. */
export function base32Decode(text: string): Buffer | undefined {
  const clean = text.replace(/[\s=]/g, '').toUpperCase();
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of clean) {
    const index = BASE32.indexOf(char);
    if (index < 0) return undefined;
    value = ((value << 5) | index) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

export type OtpAlgorithm = 'sha1' | 'sha256' | 'sha512';

/** RFC 4226: HMAC of the 8-byte big-endian counter, dynamically truncated to `digits` digits. */
export function hotp(key: Uint8Array, counter: number, digits = 6, algorithm: OtpAlgorithm = 'sha1'): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac(algorithm, key).update(message).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

export interface TotpOptions {
  stepSeconds?: number;
  digits?: number;
  algorithm?: OtpAlgorithm;
}

/** The time step (counter) of a moment: floor(unix seconds / step). */
export function totpStep(timeMs: number, stepSeconds = 30): number {
  return Math.floor(timeMs / 1000 / stepSeconds);
}

/** RFC 6238: HOTP over the time step. */
export function totp(key: Uint8Array, timeMs: number, options: TotpOptions = {}): string {
  return hotp(key, totpStep(timeMs, options.stepSeconds), options.digits, options.algorithm);
}

/**
 * The time step a code belongs to, looking `window` steps either side of now (clock drift and
 * typing time), or undefined. Every candidate is compared, so timing does not reveal which matched.
 */
export function matchTotp(
  key: Uint8Array,
  code: string,
  timeMs: number,
  window = 1,
  options: TotpOptions = {},
): number | undefined {
  const digits = options.digits ?? 6;
  if (!new RegExp(`^\\d{${digits}}$`).test(code)) return undefined;
  const now = totpStep(timeMs, options.stepSeconds);
  let matched: number | undefined;
  for (let step = now - window; step <= now + window; step++) {
    if (hotp(key, step, digits, options.algorithm) === code && matched === undefined) matched = step;
  }
  return matched;
}

/** The URI an authenticator app scans (Google's Key Uri Format): SHA-1, 6 digits, 30 s. */
export function otpauthUri(secretBase32: string, issuer: string, account: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const query = new URLSearchParams({
    secret: secretBase32,
    issuer,
    algorithm: 'SHA1',
    digits: '6',
    period: '30',
  });
  return `otpauth://totp/${label}?${query}`;
}
