// Per-key restrictions: allowed models, allowed IP ranges and the rate limit. Validated here so the
// admin API, CLI and panel apply the same rules.
import ipaddr from 'ipaddr.js';
import { AppError } from '../errors.js';

export interface KeyRestrictions {
  allowedModels: string[] | null;
  allowedIpCidrs: string[] | null;
  rateLimitPerMin: number | null;
}

export function parseAllowedModels(value: unknown): string[] | null {
  if (value === null) return null;
  if (!Array.isArray(value) || value.length > 500 || !value.every((m) => typeof m === 'string' && m.length > 0 && m.length <= 128)) {
    throw new AppError('invalid_parameter', 'allowed_models must be an array of model ids or null', 'allowed_models');
  }
  return [...new Set(value as string[])];
}

export function parseAllowedIpCidrs(value: unknown): string[] | null {
  if (value === null) return null;
  if (!Array.isArray(value) || value.length > 500) {
    throw new AppError('invalid_parameter', 'allowed_ip_cidrs must be an array of CIDRs or addresses, or null', 'allowed_ip_cidrs');
  }
  return value.map((entry) => {
    if (typeof entry !== 'string' || !isValidCidrOrAddress(entry)) {
      throw new AppError('invalid_parameter', `allowed_ip_cidrs: "${String(entry)}" is not an IPv4/IPv6 address or CIDR`, 'allowed_ip_cidrs');
    }
    return entry.trim();
  });
}

export function parseRateLimit(value: unknown): number | null {
  if (value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 1_000_000) {
    throw new AppError('invalid_parameter', 'rate_limit_per_min must be a positive integer or null', 'rate_limit_per_min');
  }
  return value;
}

function isValidCidrOrAddress(entry: string): boolean {
  const text = entry.trim();
  try {
    if (text.includes('/')) ipaddr.parseCIDR(text);
    else ipaddr.parse(text);
    return true;
  } catch {
    return false;
  }
}

type Parsed = ipaddr.IPv4 | ipaddr.IPv6;
const cidrCache = new Map<string, [Parsed, number][]>();

function compile(cidrs: string[]): [Parsed, number][] {
  const cacheKey = cidrs.join(',');
  let compiled = cidrCache.get(cacheKey);
  if (!compiled) {
    compiled = cidrs.map((text) => {
      if (text.includes('/')) return ipaddr.parseCIDR(text) as [Parsed, number];
      const addr = ipaddr.parse(text);
      return [addr, addr.kind() === 'ipv4' ? 32 : 128] as [Parsed, number];
    });
    if (cidrCache.size > 10_000) cidrCache.clear();
    cidrCache.set(cacheKey, compiled);
  }
  return compiled;
}

/** An IPv4-mapped IPv6 caller (::ffff:1.2.3.4) matches IPv4 ranges, as it is the same host. */
export function ipAllowed(callerIp: string, cidrs: string[] | null): boolean {
  if (cidrs === null) return true;
  let addr: Parsed;
  try {
    addr = ipaddr.process(callerIp);
  } catch {
    return false;
  }
  return compile(cidrs).some(([range, bits]) => addr.kind() === range.kind() && addr.match(range, bits));
}

export function modelAllowed(modelId: string, allowedModels: string[] | null): boolean {
  return allowedModels === null || allowedModels.includes(modelId);
}
