import { describe, expect, it } from 'vitest';
import { cannotPoison, PoisonSpellings } from './poison-spellings.js';

function random(seed: number) {
  let state = seed >>> 0;
  return (below: number) => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state % below;
  };
}

describe('PoisonSpellings', () => {
  it('finds a spelling wherever the chunks split it, and answers as cannotPoison', () => {
    const next = random(11);
    const pieces = [
      'abc',
      ' ',
      '"x":',
      'proto',
      '_prot',
      'type',
      '\\u00',
      '\\u0',
      '\\\\u00',
      'é',
      '_proto',
      'prototype',
    ];
    for (let round = 0; round < 5000; round++) {
      const text = Array.from({ length: 1 + next(12) }, () => pieces[next(pieces.length)]).join('');
      const raw = Buffer.from(text);
      const search = new PoisonSpellings();
      let at = 0;
      while (at < raw.length) {
        const size = 1 + next(next(3) === 0 ? 3 : 20);
        search.push(raw.subarray(at, at + size));
        at += size;
      }
      expect(search.found, text).toBe(!cannotPoison(text));
    }
  });
});
