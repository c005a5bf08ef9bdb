// The pass-through's body: the client's bytes with the top-level "model" value replaced, instead of
// serializing the parsed body again (a Claude Code body is about 90 KB: JSON.stringify of it costs
// several times what this one pass over its bytes does). Every other byte is sent as received.
// Returns null when the bytes do not have exactly one top-level "model" key with a string value, or
// repeat or escape any top-level key (an upstream parser might resolve those differently than ours):
// the caller then serializes the parsed body instead.

import type { TopLevelLayout } from '../json-depth.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COLON = 0x3a;

const isSpace = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

/**
 * The index just past the string that starts at `at` (a quote), or -1 when it does not end: the
 * next quote not escaped by an odd run of backslashes, found by Buffer.indexOf (native).
 */
function stringEnd(raw: Buffer, at: number): number {
  for (let i = raw.indexOf(QUOTE, at + 1); i >= 0; i = raw.indexOf(QUOTE, i + 1)) {
    let backslashes = 0;
    while (raw[i - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return i + 1;
  }
  return -1;
}

/**
 * Notes a top-level key; false when it is repeated or escaped, which a parser upstream could read
 * differently (first or last wins) than ours: such a body is serialized from its parsed value.
 */
function noteKey(keys: Set<string>, key: string): boolean {
  if (key.includes('\\') || keys.has(key)) return false;
  keys.add(key);
  return true;
}

/** The body with the string value at `value` (quotes included) replaced by the upstream model. */
function withModel(raw: Buffer, value: { start: number; end: number }, upstreamModel: string): Buffer {
  return Buffer.concat([
    raw.subarray(0, value.start),
    Buffer.from(JSON.stringify(upstreamModel)),
    raw.subarray(value.end),
  ]);
}

export function replaceTopLevelModel(raw: Buffer, upstreamModel: string): Buffer | null {
  let depth = 0;
  let value: { start: number; end: number } | null = null;
  const keys = new Set<string>();
  for (let i = 0; i < raw.length; i++) {
    const byte = raw[i];
    if (byte === QUOTE) {
      const end = stringEnd(raw, i);
      if (end < 0) return null;
      let j = end;
      if (depth === 1) {
        while (j < raw.length && isSpace(raw[j])) j++;
        if (raw[j] === COLON) {
          const key = raw.toString('latin1', i + 1, end - 1);
          if (!noteKey(keys, key)) return null;
          if (key === 'model') {
            j++;
            while (j < raw.length && isSpace(raw[j])) j++;
            if (raw[j] !== QUOTE) return null;
            const valueEnd = stringEnd(raw, j);
            if (valueEnd < 0) return null;
            value = { start: j, end: valueEnd };
            i = valueEnd - 1;
            continue;
          }
        }
      }
      i = end - 1;
    } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) depth++;
    else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) depth--;
  }
  return value && withModel(raw, value, upstreamModel);
}

/**
 * The same answer as replaceTopLevelModel, from the top-level members JsonDepthScanner noted while
 * the body arrived (`layout`), instead of another walk over the whole body. Only for a body that
 * JSON.parse accepted, and whose every byte the scanner saw.
 */
export function replaceTopLevelModelAt(
  raw: Buffer,
  layout: TopLevelLayout,
  upstreamModel: string,
): Buffer | null {
  if (layout.rootIsObject !== true) return null;
  const keys = new Set<string>();
  let value: { start: number; end: number } | null = null;
  for (const member of layout.members) {
    const key = raw.toString('latin1', member.keyStart + 1, member.keyEnd - 1);
    if (!noteKey(keys, key)) return null;
    if (key === 'model') {
      if (member.valueStart < 0) return null;
      value = { start: member.valueStart, end: member.valueEnd };
    }
  }
  return value && withModel(raw, value, upstreamModel);
}
