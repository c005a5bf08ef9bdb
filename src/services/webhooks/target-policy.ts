// Which webhook targets are allowed: http(s) only, and never an address on loopback, private,
// link-local, CGNAT, multicast or reserved ranges (unless WEBHOOK_ALLOW_PRIVATE). Checked at
// POST /generate; the delivery side checks the connected address again, against DNS rebinding.
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { AppError } from '../../domain/errors.js';

/** Only globally routable unicast addresses are acceptable targets. */
export function isPublicAddress(address: string): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return false;
  }
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed.range() === 'unicast';
}

export async function assertWebhookTargetAllowed(url: string, allowPrivate: boolean): Promise<void> {
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
      addresses = (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
    } catch {
      throw new AppError('webhook_url_not_allowed', `webhook_url host ${host} does not resolve`, 'webhook_url');
    }
  }
  if (addresses.length === 0 || !addresses.every(isPublicAddress)) {
    throw new AppError('webhook_url_not_allowed', 'webhook_url resolves to a private or reserved address', 'webhook_url');
  }
}
