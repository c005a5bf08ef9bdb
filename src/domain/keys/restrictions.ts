// Per-key restrictions: allowed models, allowed IP ranges and the rate limit. Validated here so the
// admin API, CLI and panel apply the same rules; the matchers are what the guard and routes enforce.
import ipaddr from 'ipaddr.js';
import { AppError } from '../errors.js';

export interface KeyRestrictions {
  allowedModels: string[] | null;
  allowedIpCidrs: string[] | null;
  rateLimitPerMin: number | null;
}

export function parseAllowedModels(value: unknown): string[] | null {
  if (value === null) return null;
  if (
    !Array.isArray(value) ||
    value.length > 500 ||
    !value.every((m) => typeof m === 'string' && m.length > 0 && m.length <= 128)
  ) {
    throw new AppError(
      'invalid_parameter',
      'allowed_models must be an array of model ids or null',
      'allowed_models',
    );
  }
  return [...new Set(value as string[])];
}

export function parseAllowedIpCidrs(value: unknown): string[] | null {
  if (value === null) return null;
  if (!Array.isArray(value) || value.length > 500) {
    throw new AppError(
      'invalid_parameter',
      'allowed_ip_cidrs must be an array of CIDRs or addresses, or null',
      'allowed_ip_cidrs',
    );
  }
  return value.map((entry) => {
    if (typeof entry !== 'string' || parseRange(entry) === null) {
      throw new AppError(
        'invalid_parameter',
        `allowed_ip_cidrs: "${String(entry)}" is not an IPv4/IPv6 address or CIDR`,
        'allowed_ip_cidrs',
      );
    }
    return entry.trim();
  });
}

export function parseRateLimit(value: unknown): number | null {
  if (value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 1_000_000) {
    throw new AppError(
      'invalid_parameter',
      'rate_limit_per_min must be a positive integer or null',
      'rate_limit_per_min',
    );
  }
  return value;
}

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Range = [Address, number];

/**
 * Parses "addr" or "addr/bits" strictly. ipaddr.js also accepts legacy IPv4 forms ("10.1",
 * "0x0a000001"); an operator who writes "10.1" most likely means something else, so they are refused.
 * An IPv4-mapped IPv6 range (::ffff:10.0.0.0/104) becomes the IPv4 range it denotes.
 */
function parseRange(entry: string): Range | null {
  const text = entry.trim();
  const slash = text.indexOf('/');
  const addressText = slash === -1 ? text : text.slice(0, slash);
  if (
    ipaddr.IPv4.isValid(addressText)
      ? !ipaddr.IPv4.isValidFourPartDecimal(addressText)
      : !ipaddr.IPv6.isValid(addressText)
  ) {
    return null;
  }
  let range: Range;
  try {
    if (slash === -1) {
      const address = ipaddr.parse(text);
      range = [address, address.kind() === 'ipv4' ? 32 : 128];
    } else {
      if (!/^\d{1,3}$/.test(text.slice(slash + 1))) return null;
      range = ipaddr.parseCIDR(text) as Range;
    }
  } catch {
    return null;
  }
  const [address, bits] = range;
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
    return [(address as ipaddr.IPv6).toIPv4Address(), bits - 96];
  }
  return range;
}

// Compiled ranges are memoised per array: the auth cache hands out the same array for every request
// of a key, so the ranges are parsed once per cache load, not once per request.
const compiledRanges = new WeakMap<readonly string[], Range[]>();

function rangesOf(cidrs: readonly string[]): Range[] {
  let ranges = compiledRanges.get(cidrs);
  if (!ranges) {
    ranges = cidrs.map(parseRange).filter((range): range is Range => range !== null);
    compiledRanges.set(cidrs, ranges);
  }
  return ranges;
}

/** An IPv4-mapped IPv6 caller (::ffff:1.2.3.4) matches IPv4 ranges, as it is the same host. */
export function ipAllowed(callerIp: string, cidrs: readonly string[] | null): boolean {
  if (cidrs === null) return true;
  let caller: Address;
  try {
    caller = ipaddr.process(callerIp);
  } catch {
    return false;
  }
  const kind = caller.kind();
  return rangesOf(cidrs).some(([range, bits]) => range.kind() === kind && caller.match(range, bits));
}

export function modelAllowed(modelId: string, allowedModels: readonly string[] | null): boolean {
  return allowedModels === null || allowedModels.includes(modelId);
}
