// Lookups by a name from outside never find what objects inherit (`__proto__`, `constructor`,
// `toString`…): the helper and each pure lookup that uses it, over every such name.
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_COMPLETION_TOKENS, maxCompletionTokensOf } from './chat/output-limits.js';
import { coerceFormValues } from './openai/form-values.js';
import { INHERITED_NAMES, ownEntry } from './own-entry.js';
import { telegramFields } from './panel/telegram-login.js';

describe.each(INHERITED_NAMES)('the inherited name %s', (name) => {
  it('is not an entry of a table', () => {
    expect(ownEntry({ png: 'image/png' }, name)).toBeUndefined();
    expect(ownEntry({ png: 'image/png' }, 'png')).toBe('image/png');
    expect(ownEntry({ [name]: 'own' }, name)).toBe('own');
  });

  it('is not a text model with its own completion limit', () => {
    expect(maxCompletionTokensOf(name)).toBe(DEFAULT_MAX_COMPLETION_TOKENS);
  });

  it('as a form field is left as text, not coerced by an inherited "schema"', () => {
    const schema = { type: 'object', properties: { seed: { type: 'integer' } } };
    expect(coerceFormValues({ [name]: '42', seed: '7' }, schema)).toEqual(
      Object.fromEntries([
        [name, '42'],
        ['seed', 7],
      ]),
    );
  });

  it('as a Telegram login field is kept as a field of its own (so it enters the signed string)', () => {
    if (!/^[a-z_]{1,32}$/.test(name)) return; // other names are refused outright
    const fields = telegramFields(
      new URLSearchParams([
        ['id', '1'],
        [name, 'x'],
        ['hash', 'h'],
      ]),
    );
    expect(fields && Object.keys(fields).sort()).toEqual(['hash', 'id', name].sort());
  });
});
