// Either test lets JSON.parse alone take a body the app's parser (secure-json-parse) would refuse?
// Never: checked against secure-json-parse itself on random bodies built from the pieces such keys
// are made of (the watch fed them in random chunks, single bytes included).
import secureJson from 'secure-json-parse';
import { describe, expect, it } from 'vitest';
import { JsonDepthScanner } from './json-depth.js';
import { cannotPoison, PrototypeKeyWatch } from './poison-spellings.js';

function random(seed: number) {
  let state = seed >>> 0;
  return (below: number) => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state % below;
  };
}

/** The watch's verdict on `raw`, fed in chunks of random sizes. */
function watched(raw: Buffer, next: (below: number) => number): boolean {
  const keys = new PrototypeKeyWatch();
  const scanner = new JsonDepthScanner(64, undefined, keys);
  for (let at = 0; at < raw.length; ) {
    const size = 1 + next(next(3) === 0 ? 3 : 40);
    scanner.push(raw.subarray(at, at + size));
    at += size;
  }
  return keys.found;
}

const refusedByTheAppParser = (text: string): boolean => {
  try {
    secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
    return false;
  } catch {
    return true;
  }
};

describe('PrototypeKeyWatch', () => {
  it('finds every body the app parser refuses, however the chunks split it', () => {
    const next = random(11);
    const keys = [
      '__proto__',
      '\\u005f_proto__',
      '__pr\\u006fto__',
      '\\u005F\\u005Fproto__',
      'constructor',
      'c\\u006fnstructor',
      'prototype',
      'pr\\u006ftotype',
      '_proto',
      // Harmless keys, often enough that many bodies hold no poison at all.
      ...['file_path', 'a', 'type', 'protocols', 'properties', 'name', 'b', 'c', 'd', 'e', 'f'],
      ...['g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o'],
    ];
    const values = ['1', '"x"', '"prototype"', '"__proto__"', '"a\\\\u00"', '"\\u00e9"', '{}'];
    const pick = <T>(items: T[]) => items[next(items.length)];
    let refused = 0;
    let passed = 0;
    for (let round = 0; round < 6_000; round++) {
      const inner = `{"${pick(keys)}": ${pick(values)}, "${pick(keys)}": ${pick(values)}}`;
      const text = `{"model": "m", "${pick(keys)}": {"${pick(keys)}": ${inner}}, "${pick(keys)}": ${pick(values)}}`;
      const found = watched(Buffer.from(text), next);
      if (refusedByTheAppParser(text)) {
        refused++;
        expect(found, text).toBe(true);
      } else if (!found) {
        passed++;
        // What the shortcut parses is what the app's parser would have given.
        expect(JSON.parse(text)).toEqual(secureJson.parse(text));
      }
    }
    expect(refused).toBeGreaterThan(300);
    expect(passed).toBeGreaterThan(150);
  });

  it('passes an ordinary body whatever the chunks, nine-letter strings across a seam included', () => {
    const next = random(5);
    const text = JSON.stringify({
      model: 'claude-sonnet-4-5',
      tools: [{ name: 'Read', input_schema: { properties: { file_path: { type: 'string' } } } }],
      messages: [{ role: 'user', content: 'Rename the class and its constructor arguments, résumé ✓\n' }],
    });
    for (let round = 0; round < 500; round++) expect(watched(Buffer.from(text), next)).toBe(false);
  });

  it('looks at the escape and at the strings, not at the letters anywhere', () => {
    const found = (text: string) => watched(Buffer.from(text), () => 1_000);
    expect(found('{"note": "see a\\u00e9"}')).toBe(true);
    expect(found('{"note": "a literal \\\\u00 is no escape"}')).toBe(false);
    expect(found('{"note": "\\u2019"}')).toBe(false);
    expect(found('{"note": "a prototype", "__protocol": 1}')).toBe(false);
    expect(found('{"constructor": {"prototype": 1}}')).toBe(true);
    expect(found('{"__proto__": {}}')).toBe(true);
  });
});

describe('cannotPoison', () => {
  it('is false for every text the app parser refuses, on random compositions', () => {
    const keys = [
      '__proto__',
      '\\u005f_proto__',
      '__pr\\u006fto__',
      'constructor',
      'c\\u006fnstructor',
      'a',
      'proto',
    ];
    const inner = ['prototype', 'pr\\u006ftotype', 'x', '_proto'];
    let seed = 7;
    const pick = <T>(items: T[]) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return items[seed % items.length];
    };
    let refused = 0;
    for (let i = 0; i < 2_000; i++) {
      const text = `{"model": "m", "metadata": {"${pick(keys)}": {"${pick(inner)}": {"b": 1}}}, "${pick(keys)}": 1}`;
      if (refusedByTheAppParser(text)) {
        refused++;
        expect(cannotPoison(text), text).toBe(false);
      }
    }
    expect(refused).toBeGreaterThan(100);
  });

  it('is true for an ordinary Claude Code-like body, which then skips the regular expressions', () => {
    const text = JSON.stringify({
      model: 'claude-sonnet-4-5',
      max_tokens: 100,
      system: [{ type: 'text', text: 'You are a coding agent.\nRead files with the Read tool.' }],
      messages: [{ role: 'user', content: 'Rename the class and its constructor arguments, résumé ✓' }],
    });
    expect(cannotPoison(text)).toBe(true);
    expect(refusedByTheAppParser(text)).toBe(false);
  });
});
