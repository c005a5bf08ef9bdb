import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.js';
import { ipAllowed, modelAllowed, parseAllowedIpCidrs, parseRateLimit } from './restrictions.js';

describe('parseAllowedIpCidrs', () => {
  it('accepts IPv4/IPv6 addresses and CIDRs, trimmed, and null', () => {
    expect(
      parseAllowedIpCidrs([' 10.0.0.0/8 ', '192.168.1.7', '2001:db8::/32', '::1', '::ffff:10.0.0.0/104']),
    ).toEqual(['10.0.0.0/8', '192.168.1.7', '2001:db8::/32', '::1', '::ffff:10.0.0.0/104']);
    expect(parseAllowedIpCidrs(null)).toBeNull();
  });

  it.each([
    ['10.1'],
    ['0x0a000001'],
    ['10.0.0.0/33'],
    ['2001:db8::/129'],
    ['10.0.0.0/'],
    ['10.0.0.0/x'],
    ['example.com'],
    [''],
    ['1.2.3.4/8/8'],
  ])('refuses %j with 422 on allowed_ip_cidrs', (entry) => {
    const error = catchError(() => parseAllowedIpCidrs([entry]));
    expect(error.code).toBe('invalid_parameter');
    expect(error.status).toBe(422);
    expect(error.param).toBe('allowed_ip_cidrs');
  });

  it('refuses non-arrays and non-strings', () => {
    expect(catchError(() => parseAllowedIpCidrs('10.0.0.0/8')).code).toBe('invalid_parameter');
    expect(catchError(() => parseAllowedIpCidrs([42])).code).toBe('invalid_parameter');
  });
});

describe('parseRateLimit', () => {
  it('takes a positive integer or null', () => {
    expect(parseRateLimit(5)).toBe(5);
    expect(parseRateLimit(null)).toBeNull();
    for (const bad of [0, -1, 1.5, '5', 2_000_000])
      expect(catchError(() => parseRateLimit(bad)).param).toBe('rate_limit_per_min');
  });
});

describe('ipAllowed', () => {
  it('lets anyone through when the key has no list', () => {
    expect(ipAllowed('203.0.113.9', null)).toBe(true);
  });

  it('matches IPv4 CIDRs and single addresses', () => {
    const list = ['10.0.0.0/8', '192.168.1.7'];
    expect(ipAllowed('10.200.3.4', list)).toBe(true);
    expect(ipAllowed('192.168.1.7', list)).toBe(true);
    expect(ipAllowed('192.168.1.8', list)).toBe(false);
    expect(ipAllowed('11.0.0.1', list)).toBe(false);
  });

  it('matches IPv6 CIDRs and single addresses, never across families', () => {
    const list = ['2001:db8:abcd::/48', '::1'];
    expect(ipAllowed('2001:db8:abcd:12::5', list)).toBe(true);
    expect(ipAllowed('::1', list)).toBe(true);
    expect(ipAllowed('2001:db8:abce::1', list)).toBe(false);
    expect(ipAllowed('127.0.0.1', list)).toBe(false);
    expect(ipAllowed('2001:db8::1', ['0.0.0.0/0'])).toBe(false);
  });

  it('treats an IPv4-mapped IPv6 caller as its IPv4 address', () => {
    expect(ipAllowed('::ffff:10.1.2.3', ['10.0.0.0/8'])).toBe(true);
    expect(ipAllowed('::ffff:11.1.2.3', ['10.0.0.0/8'])).toBe(false);
    expect(ipAllowed('10.1.2.3', ['::ffff:10.0.0.0/104'])).toBe(true);
    expect(ipAllowed('::ffff:10.1.2.3', ['::ffff:10.0.0.0/104'])).toBe(true);
  });

  it('refuses a caller address it cannot parse', () => {
    expect(ipAllowed('not-an-ip', ['0.0.0.0/0'])).toBe(false);
    expect(ipAllowed('', ['0.0.0.0/0'])).toBe(false);
  });

  it('property: an IPv4 address is inside its own /n, and flipping a bit inside the prefix leaves it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 1, max: 32 }), (n, bits) => {
        const network = bits === 32 ? n : n & ~(0xffffffff >>> bits);
        const cidr = `${ipv4(network >>> 0)}/${bits}`;
        expect(ipAllowed(ipv4(n), [cidr])).toBe(true);
        const flipped = (n ^ (1 << (32 - bits))) >>> 0; // the lowest bit of the prefix
        expect(ipAllowed(ipv4(flipped), [cidr])).toBe(false);
      }),
    );
  });

  it('property: the same holds for IPv6 /n ranges', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 }),
        fc.integer({ min: 1, max: 128 }),
        (groups, bits) => {
          const address = groups.map((g) => g.toString(16)).join(':');
          const cidr = `${address}/${bits}`;
          const bit = bits - 1; // the last bit of the prefix, counted from the left
          const flipped = [...groups];
          flipped[Math.floor(bit / 16)] ^= 1 << (15 - (bit % 16));
          const other = flipped.map((g) => g.toString(16)).join(':');
          // Mapped IPv4 addresses are compared as IPv4 (tested above), so leave that form out here.
          fc.pre(!/^0:0:0:0:0:ffff:/.test(other) && !/^0:0:0:0:0:ffff:/.test(address));
          expect(ipAllowed(address, [cidr])).toBe(true);
          expect(ipAllowed(other, [cidr])).toBe(false);
        },
      ),
    );
  });
});

describe('allowed models', () => {
  it('allows everything without a list and only listed ids with one', () => {
    expect(modelAllowed('gpt-4o', null)).toBe(true);
    expect(modelAllowed('gpt-4o', ['gpt-4o'])).toBe(true);
    expect(modelAllowed('gpt-4o-mini', ['gpt-4o'])).toBe(false);
  });
});

function ipv4(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

function catchError(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError');
}
