// The depth scanner against a plain byte-by-byte reference, on random JSON-like text (strings
// with escapes and brackets inside, deep nesting) split into chunks at random boundaries.
import { describe, expect, it } from 'vitest';
import { JsonDepthScanner, MAX_JSON_DEPTH } from './json-depth.js';

/** The scanner's rule, one byte at a time: false once the nesting goes past the limit. */
function reference(text: Buffer, limit: number): boolean {
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (const c of text) {
    if (inString) {
      if (escaped) escaped = false;
      else if (c === 0x5c) escaped = true;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return false;
    } else if ((c === 0x7d || c === 0x5d) && depth > 0) depth--;
  }
  return true;
}

function randomText(random: () => number): string {
  const pieces = ['{', '[', '}', ']', '"', '\\', '\\\\', '\\"', 'a', ' ', ':', ',', 'é', '"x[{"', '1'];
  let text = '';
  const length = Math.floor(random() * 400);
  for (let i = 0; i < length; i++) text += pieces[Math.floor(random() * pieces.length)];
  return text;
}

function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

describe('JsonDepthScanner', () => {
  it('agrees with the byte-by-byte rule on random text in random chunks', () => {
    const random = seeded(42);
    for (let run = 0; run < 3_000; run++) {
      const text = Buffer.from(randomText(random));
      const limit = 1 + Math.floor(random() * 6);
      const scanner = new JsonDepthScanner(limit);
      let ok = true;
      for (let at = 0; at < text.length && ok; ) {
        const size = 1 + Math.floor(random() * 20);
        // Plain Uint8Array chunks too, as some streams give.
        const part = text.subarray(at, at + size);
        ok = scanner.push(run % 2 ? part : new Uint8Array(part));
        at += size;
      }
      expect(ok, text.toString()).toBe(reference(text, limit));
    }
  });

  it('lets long strings with escaped quotes and brackets through, and stops deep nesting', () => {
    const body = Buffer.from(JSON.stringify({ a: `${'x'.repeat(50_000)}"[[[{{{\\`, b: [[['"']]] }));
    expect(new JsonDepthScanner().push(body)).toBe(true);
    expect(new JsonDepthScanner().push(Buffer.from('['.repeat(MAX_JSON_DEPTH + 1)))).toBe(false);
  });
});
