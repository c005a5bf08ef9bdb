import { describe, expect, it } from 'vitest';
import { timeOrderedHex, uuidV7 } from './ids.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('time-ordered ids', () => {
  it('are RFC 9562 version 7 UUIDs carrying the creation time', () => {
    const id = uuidV7(Date.UTC(2026, 10, 21, 12, 0, 0, 123));
    expect(id).toMatch(UUID_V7);
    expect(Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(Date.UTC(2026, 10, 21, 12, 0, 0, 123));
  });

  it('sort by creation time, whatever their random part', () => {
    const ids = [3, 1, 2, 1000, 999].map((ms) => uuidV7(1_700_000_000_000 + ms));
    const byTime = [1, 2, 3, 999, 1000].map((ms) => (1_700_000_000_000 + ms).toString(16));
    expect([...ids].sort().map((id) => (id.slice(0, 8) + id.slice(9, 13)).replace(/^0+/, ''))).toEqual(
      byTime,
    );
    const hex = [5, 4].map((ms) => timeOrderedHex(1_700_000_000_000 + ms));
    expect(hex[1] < hex[0]).toBe(true);
    expect(hex[0]).toMatch(/^[0-9a-f]{32}$/);
  });

  it('differ within one millisecond (10,000 ids, no repeat)', () => {
    const now = Date.now();
    const ids = new Set(Array.from({ length: 10_000 }, () => uuidV7(now)));
    expect(ids.size).toBe(10_000);
    expect(new Set(Array.from({ length: 10_000 }, () => timeOrderedHex(now))).size).toBe(10_000);
  });
});
