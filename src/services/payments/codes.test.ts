import { describe, expect, it } from 'vitest';
import { hashCode, normalizeCode } from './codes.js';

describe('code text', () => {
  it('reads a code however it is typed', () => {
    const canonical = 'GG-ABCD1234EFGH5678';
    for (const typed of [
      'GG-ABCD-1234-EFGH-5678',
      'gg-abcd-1234-efgh-5678',
      'abcd 1234 efgh 5678',
      'GGABCD1234EFGH5678',
    ])
      expect(normalizeCode(typed)).toBe(canonical);
    expect(normalizeCode('GG-0O1I-L000-0000-0000')).toBe('GG-0011100000000000');
    expect(hashCode('gg-abcd-1234-efgh-5678')).toBe(hashCode('GG-ABCD-1234-EFGH-5678'));
    expect(hashCode('GG-ABCD-1234-EFGH-5679')).not.toBe(hashCode('GG-ABCD-1234-EFGH-5678'));
  });
});
