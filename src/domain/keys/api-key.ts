// API key secrets: a recognisable prefix plus 32 random bytes in base62. Only the SHA-256 of a key
// is stored; the full value exists once, in the answer that creates it.
import { hash, randomBytes } from 'node:crypto';

export const KEY_PREFIX = 'sk_live_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export function base62(bytes: Buffer): string {
  let n = BigInt(`0x${bytes.toString('hex')}`);
  let out = '';
  while (n > 0n) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(Math.ceil((bytes.length * 8) / Math.log2(62)), '0');
}

export function generateApiKey(): string {
  return KEY_PREFIX + base62(randomBytes(32));
}

/** SHA-256 hex. The one-shot `crypto.hash` costs a third of a Hash object; it runs on every request. */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** What an owner sees after creation: the prefix, four characters, an ellipsis and the last four. */
export function maskApiKey(prefix: string, last4: string): string {
  return `${prefix}…${last4}`;
}

export function displayParts(key: string): { prefix: string; last4: string } {
  return { prefix: key.slice(0, KEY_PREFIX.length + 4), last4: key.slice(-4) };
}

/** Cheap shape check before any lookup, so junk never reaches the database. */
export function looksLikeApiKey(value: string): boolean {
  return value.length >= 20 && value.length <= 128 && /^[A-Za-z0-9_-]+$/.test(value);
}
