import { describe, expect, it } from 'vitest';
import { replaceTopLevelModel } from './raw-body.js';

const replaced = (text: string) => replaceTopLevelModel(Buffer.from(text), 'up-1')?.toString() ?? null;

describe('replaceTopLevelModel', () => {
  it('replaces only the top-level value and keeps every other byte', () => {
    const text =
      '{ "model" : "claude-sonnet-4-5", "messages":[{"role":"user","content":"say \\"model\\": \\"x\\" \\\\"}],' +
      '"tools":[{"name":"Task","input_schema":{"properties":{"model":{"type":"string"}}}}],"metadata":{"model":"claude-sonnet-4-5"}}';
    const out = replaced(text);
    expect(out).toBe(text.replace('"claude-sonnet-4-5", "messages"', '"up-1", "messages"'));
    const parsed = JSON.parse(out!);
    expect(parsed.model).toBe('up-1');
    expect(parsed.metadata.model).toBe('claude-sonnet-4-5');
    expect(parsed.messages[0].content).toBe('say "model": "x" \\');
  });

  it('finds the key wherever it is among the top-level fields', () => {
    expect(JSON.parse(replaced('{"max_tokens":5,"system":"a\\\\","model":"m"}')!)).toEqual({
      max_tokens: 5,
      system: 'a\\',
      model: 'up-1',
    });
  });

  it('gives up (null) on what it cannot replace safely', () => {
    expect(replaced('{"model":"a","model":"b"}')).toBeNull();
    // A repeated or escaped top-level key of any name: first-wins and last-wins parsers disagree.
    expect(replaced('{"model":"a","max_tokens":5,"max_tokens":50000}')).toBeNull();
    expect(replaced('{"model":"a","stream":false,"\\u0073tream":true}')).toBeNull();
    // Nested repeats are not ours to judge: only the top level is read for billing.
    expect(JSON.parse(replaced('{"model":"a","metadata":{"x":1,"x":2}}')!).model).toBe('up-1');
    expect(replaced('{"\\u006dodel":"a"}')).toBeNull();
    expect(replaced('{"model":5}')).toBeNull();
    expect(replaced('{"messages":[{"model":"a"}]}')).toBeNull();
    expect(replaced('{"model":"unterminated}')).toBeNull();
  });
});
