// The layout noted while a body arrives must give exactly what a walk over the whole body gives:
// replaceTopLevelModel is the reference, over tricky bodies and random ones, split into chunks at
// random places (single bytes included).
import { describe, expect, it } from 'vitest';
import { messagesBody } from '../../../bench/messages-body.js';
import { JsonDepthScanner, TopLevelLayout } from '../json-depth.js';
import { replaceTopLevelModel, replaceTopLevelModelAt } from './raw-body.js';

/** A small deterministic generator, so that a failure can be replayed. */
function random(seed: number) {
  let state = seed >>> 0;
  return (below: number) => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state % below;
  };
}

function chunked(raw: Buffer, next: (below: number) => number): Buffer[] {
  const chunks: Buffer[] = [];
  let at = 0;
  while (at < raw.length) {
    const size = next(4) === 0 ? 1 : 1 + next(Math.max(1, Math.min(raw.length - at, 4096)));
    chunks.push(raw.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

function viaLayout(raw: Buffer, chunks: Buffer[]): Buffer | null {
  const layout = new TopLevelLayout();
  const scanner = new JsonDepthScanner(64, layout);
  for (const chunk of chunks) expect(scanner.push(chunk)).toBe(true);
  expect(scanner.bytes).toBe(raw.length);
  return replaceTopLevelModelAt(raw, layout, 'up-1');
}

const TRICKY = [
  '{ "model" : "claude-sonnet-4-5", "messages":[{"role":"user","content":"say \\"model\\": \\"x\\" \\\\"}],' +
    '"tools":[{"name":"Task","input_schema":{"properties":{"model":{"type":"string"}}}}],"metadata":{"model":"claude-sonnet-4-5"}}',
  '{"max_tokens":5,"system":"a\\\\","model":"m"}',
  '{"model":"a","model":"b"}',
  '{"model":"a","max_tokens":5,"max_tokens":50000}',
  '{"model":"a","stream":false,"\\u0073tream":true}',
  '{"model":"a","metadata":{"x":1,"x":2}}',
  '{"\\u006dodel":"a"}',
  '{"model":5}',
  '{"model":{"id":"a"}}',
  '{"messages":[{"model":"a"}]}',
  '{"model":"\\"quoted\\" \\\\ name"}',
  '\n\t{\r\n "model"\n:\t"m" ,\n"messages" : [ ] }\n',
  '{"a":"x","b":["model","y"],"model":"m","c":{"model":"n"},"d":"model"}',
  '{"":"empty key","model":"m"}',
  '["model","m"]',
  '{}',
];

function randomBody(next: (below: number) => number): string {
  const keys = [
    'model',
    'max_tokens',
    'messages',
    'stream',
    'system',
    'tools',
    'metadata',
    'mod\\u0065l',
    'x"y',
  ];
  const value = (depth: number): string => {
    switch (next(depth > 2 ? 3 : 6)) {
      case 0:
        return JSON.stringify(['m', 'model', 'a\\b', 'q"q', '{"model":"z"}', ''][next(6)]);
      case 1:
        return String(next(1000));
      case 2:
        return ['true', 'null', 'false'][next(3)];
      case 3:
        return `[${Array.from({ length: next(3) }, () => value(depth + 1)).join(',')}]`;
      default:
        return `{${Array.from({ length: next(4) }, () => `${JSON.stringify(keys[next(keys.length)].replace('\\u0065', 'e'))}:${value(depth + 1)}`).join(',')}}`;
    }
  };
  // Distinct plain keys, with "model" among them most of the time; now and then an escaped, odd or
  // repeated key.
  const pool = keys.slice(1, 7).filter(() => next(2) === 0);
  if (next(4) !== 0) pool.splice(next(pool.length + 1), 0, 'model');
  if (next(10) === 0) pool.splice(next(pool.length + 1), 0, keys[7 + next(2)]);
  if (next(10) === 0 && pool.length > 0) pool.push(pool[next(pool.length)]);
  const members = pool.map((key) => {
    const quoted = key.includes('\\') ? `"${key}"` : JSON.stringify(key);
    const space = [' ', '', '\n  '][next(3)];
    const text = key === 'model' && next(5) !== 0 ? JSON.stringify('m') : value(1);
    return `${space}${quoted}${space}:${space}${text}`;
  });
  return `{${members.join(',')}}`;
}

describe('replaceTopLevelModelAt', () => {
  it('answers as replaceTopLevelModel on tricky bodies, whatever the chunks', () => {
    const next = random(7);
    for (const text of TRICKY) {
      const raw = Buffer.from(text);
      const expected = replaceTopLevelModel(raw, 'up-1');
      for (let round = 0; round < 40; round++) expect(viaLayout(raw, chunked(raw, next))).toEqual(expected);
    }
  });

  it('answers as replaceTopLevelModel on 3,000 random bodies, split at random', () => {
    const next = random(42);
    let spliced = 0;
    for (let round = 0; round < 3000; round++) {
      const text = randomBody(next);
      JSON.parse(text); // only bodies the route would have accepted
      const raw = Buffer.from(text);
      const expected = replaceTopLevelModel(raw, 'up-1');
      if (expected) spliced++;
      expect(viaLayout(raw, chunked(raw, next))?.toString() ?? null, text).toBe(expected?.toString() ?? null);
    }
    // Both outcomes were exercised.
    expect(spliced).toBeGreaterThan(300);
    expect(spliced).toBeLessThan(2700);
  });

  it('splices the Claude Code-sized bench body as the walk does', () => {
    const raw = Buffer.from(messagesBody('claude-sonnet-4-5'));
    const expected = replaceTopLevelModel(raw, 'up-1');
    expect(expected).not.toBeNull();
    expect(viaLayout(raw, chunked(raw, random(3)))).toEqual(expected);
    expect(viaLayout(raw, [raw])).toEqual(expected);
  });
});
