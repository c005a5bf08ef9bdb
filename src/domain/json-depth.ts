// Bounds on how deeply a JSON value may nest. Parsing, copying, validating and storing a value all
// walk it; a body nested thousands deep would overflow the stack somewhere along that path (a 500).
// Both checks here are iterative, so they are safe on any input.

/** The deepest nesting of objects and arrays a request body may have (the body itself is level 1). */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * Counts the nesting of JSON text as its bytes arrive, chunk by chunk, before anything parses it:
 * brackets and braces outside strings. The structural characters are ASCII and never occur inside a
 * UTF-8 multi-byte sequence, so bytes can be scanned directly. For valid JSON the count is exact;
 * for invalid JSON it is approximate, and the parser refuses that text anyway.
 */
export class JsonDepthScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;

  constructor(readonly limit: number = MAX_JSON_DEPTH) {}

  /**
   * Feeds the next chunk; false once the nesting has gone past the limit. Inside a string it jumps
   * to the next quote or backslash with Buffer.indexOf (native): long strings (a 90 KB prompt is
   * mostly strings) cost a few calls instead of a JavaScript step per byte.
   */
  push(chunk: Uint8Array): boolean {
    const bytes = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const end = bytes.length;
    let i = 0;
    // The next backslash and the next quote at or after i (end: none), each searched again only
    // once passed: a long string with many escapes would otherwise be searched to its end per escape.
    let backslash = -1;
    let quote = -1;
    while (i < end) {
      if (this.inString) {
        if (this.escaped) {
          this.escaped = false;
          i++;
          continue;
        }
        if (quote < i) {
          quote = bytes.indexOf(QUOTE, i);
          if (quote < 0) quote = end;
        }
        if (backslash < i) {
          backslash = bytes.indexOf(BACKSLASH, i);
          if (backslash < 0) backslash = end;
        }
        if (backslash < quote) {
          this.escaped = true;
          i = backslash + 1;
        } else if (quote < end) {
          this.inString = false;
          i = quote + 1;
        } else return true;
        continue;
      }
      const c = bytes[i++];
      if (c === QUOTE) {
        this.inString = true;
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (++this.depth > this.limit) return false;
      } else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && this.depth > 0) {
        this.depth--;
      }
    }
    return true;
  }
}

/** Whether JSON text nests objects and arrays more than `limit` levels deep. */
export function jsonTextTooDeep(text: string | Uint8Array, limit = MAX_JSON_DEPTH): boolean {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  return !new JsonDepthScanner(limit).push(bytes);
}

/**
 * Whether a value nests objects and arrays more than `limit` levels deep (a scalar is level 0, `{}`
 * level 1). Walks with an explicit stack and stops at the first level past the limit, so a cyclic
 * value ends too.
 */
export function valueTooDeep(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (node === null || typeof node !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}
