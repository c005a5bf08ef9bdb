// The shortcut past secure-json-parse on /v1/messages must never let through a text that the
// app's parser would refuse: checked here against secure-json-parse itself, on texts built from
// the pieces such keys are made of.
import secureJson from 'secure-json-parse';
import { describe, expect, it } from 'vitest';
import { cannotPoison } from '../../../domain/poison-spellings.js';

/** Valid JSON (every text here is) that the app's parser refuses all the same. */
const refusedByTheAppParser = (text: string): boolean => {
  JSON.parse(text);
  try {
    secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
    return false;
  } catch {
    return true;
  }
};

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
