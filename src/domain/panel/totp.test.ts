import { describe, expect, it } from 'vitest';
import { base32Decode, base32Encode, hotp, matchTotp, otpauthUri, totp } from './totp.js';

// RFC 6238 appendix B: the seeds are the ASCII strings below (20, 32 and 64 bytes), 8 digits.
const SEEDS = {
  sha1: Buffer.from('12345678901234567890'),
  sha256: Buffer.from('12345678901234567890123456789012'),
  sha512: Buffer.from('1234567890123456789012345678901234567890123456789012345678901234'),
};
const RFC6238: [number, string, string, string][] = [
  [59, '94287082', '46119246', '90693936'],
  [1111111109, '07081804', '68084774', '25091201'],
  [1111111111, '14050471', '67062674', '99943326'],
  [1234567890, '89005924', '91819424', '93441116'],
  [2000000000, '69279037', '90698825', '38618901'],
  [20000000000, '65353130', '77737706', '47863826'],
];

describe('TOTP (RFC 6238)', () => {
  it.each(RFC6238)(
    'at %i s matches the RFC test vectors for SHA-1, SHA-256 and SHA-512',
    (seconds, s1, s256, s512) => {
      const at = seconds * 1000;
      expect(totp(SEEDS.sha1, at, { digits: 8, algorithm: 'sha1' })).toBe(s1);
      expect(totp(SEEDS.sha256, at, { digits: 8, algorithm: 'sha256' })).toBe(s256);
      expect(totp(SEEDS.sha512, at, { digits: 8, algorithm: 'sha512' })).toBe(s512);
    },
  );

  it('HOTP matches RFC 4226 appendix D', () => {
    const expected = [
      '755224',
      '287082',
      '359152',
      '969429',
      '338314',
      '254676',
      '287922',
      '162583',
      '399871',
      '520489',
    ];
    expect(expected.map((_, counter) => hotp(SEEDS.sha1, counter))).toEqual(expected);
  });

  it('accepts a code one step either side of now and refuses anything else', () => {
    const now = 1_700_000_000_000;
    const step = Math.floor(now / 30_000);
    const code = (offset: number) => hotp(SEEDS.sha1, step + offset);
    expect(matchTotp(SEEDS.sha1, code(0), now)).toBe(step);
    expect(matchTotp(SEEDS.sha1, code(-1), now)).toBe(step - 1);
    expect(matchTotp(SEEDS.sha1, code(1), now)).toBe(step + 1);
    for (const offset of [-3, -2, 2, 3]) {
      if ([code(-1), code(0), code(1)].includes(code(offset))) continue;
      expect(matchTotp(SEEDS.sha1, code(offset), now)).toBeUndefined();
    }
    expect(matchTotp(SEEDS.sha1, '12345', now)).toBeUndefined();
    expect(matchTotp(SEEDS.sha1, '12345a', now)).toBeUndefined();
    expect(matchTotp(SEEDS.sha1, '', now)).toBeUndefined();
  });
});

describe('base32 (RFC 4648)', () => {
  it('encodes and decodes the RFC test vectors', () => {
    const vectors: [string, string][] = [
      ['', ''],
      ['f', 'MY'],
      ['fo', 'MZXQ'],
      ['foo', 'MZXW6'],
      ['foob', 'MZXW6YQ'],
      ['fooba', 'MZXW6YTB'],
      ['foobar', 'MZXW6YTBOI'],
    ];
    for (const [plain, encoded] of vectors) {
      expect(base32Encode(Buffer.from(plain))).toBe(encoded);
      expect(base32Decode(encoded)?.toString()).toBe(plain);
    }
    expect(base32Decode('mzxw 6ytb oi======')?.toString()).toBe('foobar');
    expect(base32Decode('MZXW1')).toBeUndefined();
  });

  it('round-trips random secrets', () => {
    for (let n = 0; n < 50; n++) {
      const bytes = Buffer.from(Array.from({ length: n }, (_, i) => (i * 37 + n) & 0xff));
      expect(base32Decode(base32Encode(bytes))).toEqual(bytes);
    }
  });
});

describe('otpauth URI', () => {
  it('names the issuer and account and carries the secret', () => {
    const uri = otpauthUri('JBSWY3DPEHPK3PXP', 'gengate', 'account 42');
    expect(uri).toBe(
      'otpauth://totp/gengate:account%2042?secret=JBSWY3DPEHPK3PXP&issuer=gengate&algorithm=SHA1&digits=6&period=30',
    );
  });
});
