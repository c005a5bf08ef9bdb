import { describe, expect, it } from 'vitest';
import { actionLabel, describeDetails } from './panel-audit.js';

const names = new Map([
  [1, '“prod” (…ab12)'],
  [2, '“staging” (…cd34) (deleted)'],
]);

describe('audit details in words', () => {
  it('names keys, writes rubles and spells out restrictions', () => {
    expect(
      describeDetails(
        JSON.stringify({ from_key_id: 1, to_key_id: 2, amount_micro: 1_500_000, note: 'move' }),
        names,
      ),
    ).toBe('from key “prod” (…ab12); to key “staging” (…cd34) (deleted); amount 1.50 ₽; note: move');
    expect(
      describeDetails(
        JSON.stringify({
          key_id: 1,
          allowed_models: ['a', 'b'],
          allowed_ip_cidrs: null,
          rate_limit_per_min: 60,
        }),
        names,
      ),
    ).toBe('key “prod” (…ab12); models: a, b; IP ranges: none; requests per minute: 60');
    expect(describeDetails(JSON.stringify({ key_id: 9, prefix: 'sk_live_abcd' }), names)).toBe('key #9');
    expect(describeDetails(JSON.stringify({ key_id: 1, amount_micro: -250_000 }), names)).toBe(
      'key “prod” (…ab12); amount -0.25 ₽',
    );
  });

  it('keeps what it cannot read as it is', () => {
    expect(describeDetails(null, names)).toBe('');
    expect(describeDetails('not json', names)).toBe('not json');
    expect(describeDetails('42', names)).toBe('42');
  });

  it('labels known actions and passes unknown ones through', () => {
    expect(actionLabel('panel.login_failed')).toBe('Sign-in failed');
    expect(actionLabel('key.transfer')).toBe('Transfer between keys');
    expect(actionLabel('something.new')).toBe('something.new');
  });
});
