// Bounds on how deeply a JSON value may nest. Parsing, copying, validating and storing a value all
// walk it; a body nested thousands deep would overflow the stack somewhere along that path (a 500).
// Both checks here are iterative, so they are safe on any input.

import type { PrototypeKeyWatch } from './poison-spellings.js';

/** The deepest nesting of objects and arrays a request body may have (the body itself is level 1). */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const LETTER_U = 0x75;

/** A top-level member as its bytes lie in the body: the key's span, and the value's when a string. */
export interface TopLevelMember {
  /** From the key's opening quote to just past its closing one. */
  keyStart: number;
  keyEnd: number;
  /** The same for the value, when the value is a string; -1 otherwise. */
  valueStart: number;
  valueEnd: number;
}

/**
 * Where the top-level members of a JSON object body lie, noted by JsonDepthScanner while the bytes
 * arrive, so that nothing walks the whole body again for them afterwards (the Messages pass-through
 * splices its model value: domain/messages/raw-body.ts). Exact for valid JSON; for anything else
 * the parser refuses the body before the layout is read.
 */
export class TopLevelLayout {
  readonly members: TopLevelMember[] = [];
  /** Whether the body is one object (undefined before its first bracket; false for anything else). */
  rootIsObject: boolean | undefined;
  private expectKey = false;
  private stringStart = -1;

  rootOpened(isObject: boolean): void {
    // A second top-level value is not JSON; the layout then answers for nothing.
    this.rootIsObject = this.rootIsObject === undefined && isObject;
    this.expectKey = isObject;
  }

  /** A comma (the next string is a key) or a colon (the next value is the last key's). */
  separator(comma: boolean): void {
    this.expectKey = comma;
  }

  stringStarted(at: number): void {
    this.stringStart = at;
  }

  stringEnded(at: number): void {
    if (this.expectKey) {
      this.members.push({ keyStart: this.stringStart, keyEnd: at, valueStart: -1, valueEnd: -1 });
      return;
    }
    const last = this.members[this.members.length - 1];
    if (last && last.valueStart < 0) {
      last.valueStart = this.stringStart;
      last.valueEnd = at;
    }
  }
}

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
  /** Where the open string's content begins (absolute), for the watch's length check. */
  private stringAt = 0;
  /** Bytes pushed so far: the absolute position of the next chunk's first byte. */
  bytes = 0;

  /**
   * With `layout`, the top-level keys and string values are noted in it as the bytes pass; with
   * `keys`, every string and escape is shown to it (domain/poison-spellings.ts).
   */
  constructor(
    readonly limit: number = MAX_JSON_DEPTH,
    readonly layout?: TopLevelLayout,
    readonly keys?: PrototypeKeyWatch,
  ) {}

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
    const base = this.bytes;
    this.bytes += end;
    const layout = this.layout;
    const keys = this.keys;
    keys?.nextChunk(bytes);
    let i = 0;
    // The next backslash and the next quote at or after i (end: none), each searched again only
    // once passed: a long string with many escapes would otherwise be searched to its end per escape.
    let backslash = -1;
    let quote = -1;
    while (i < end) {
      if (this.inString) {
        if (this.escaped) {
          this.escaped = false;
          if (keys && bytes[i] === LETTER_U) keys.unicodeEscape(bytes, i);
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
          if (keys) keys.stringEnded(bytes, this.stringAt - base, quote);
          i = quote + 1;
          if (layout && this.depth === 1) layout.stringEnded(base + i);
        } else return true;
        continue;
      }
      const c = bytes[i++];
      if (c === QUOTE) {
        this.inString = true;
        this.stringAt = base + i;
        if (layout && this.depth === 1) layout.stringStarted(base + i - 1);
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (++this.depth > this.limit) return false;
        if (layout && this.depth === 1) layout.rootOpened(c === OPEN_BRACE);
      } else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && this.depth > 0) {
        this.depth--;
      } else if (layout && this.depth === 1 && (c === COMMA || c === COLON)) {
        layout.separator(c === COMMA);
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
