// Which webhook targets are allowed: http(s) only, and never an address on loopback, private,
// link-local, CGNAT, multicast or reserved ranges (unless WEBHOOK_ALLOW_PRIVATE). Checked at
// POST /generate; the delivery side (egress.ts) checks the connected address again, against DNS rebinding.
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { AppError } from '../../domain/errors.js';

/** Resolves a host name to every address it has. Injectable so tests can script DNS answers. */
export type ResolveHost = (hostname: string) => Promise<string[]>;

export const resolveHost: ResolveHost = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * Only globally routable unicast addresses are acceptable targets. IPv4-mapped IPv6 is judged as the
 * IPv4 address it carries; other IPv6 must lie in 2000::/3, which also excludes the deprecated
 * IPv4-compatible form (::127.0.0.1) that ipaddr.js would call unicast.
 */
export function isPublicAddress(address: string): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address.replace(/^\[|\]$/g, ''));
  } catch {
    return false;
  }
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  if (parsed.range() !== 'unicast') return false;
  return parsed.kind() === 'ipv4' || (parsed as ipaddr.IPv6).match(GLOBAL_UNICAST_V6);
}

export async function assertWebhookTargetAllowed(
  url: string,
  allowPrivate: boolean,
  resolve: ResolveHost = resolveHost,
): Promise<void> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new AppError('webhook_url_not_allowed', 'webhook_url is not a valid URL', 'webhook_url');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new AppError('webhook_url_not_allowed', 'webhook_url must use http or https', 'webhook_url');
  }
  if (parsed.username || parsed.password) {
    throw new AppError('webhook_url_not_allowed', 'webhook_url must not carry credentials', 'webhook_url');
  }
  if (allowPrivate) return;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (ipaddr.isValid(host)) {
    addresses = [host];
  } else {
    try {
      addresses = await resolve(host);
    } catch {
      throw new AppError(
        'webhook_url_not_allowed',
        `webhook_url host ${host} does not resolve`,
        'webhook_url',
      );
    }
  }
  if (addresses.length === 0 || !addresses.every(isPublicAddress)) {
    throw new AppError(
      'webhook_url_not_allowed',
      'webhook_url resolves to a private or reserved address',
      'webhook_url',
    );
  }
}
