import { describe, expect, it } from 'vitest';
import { orderRoutes, weightGroups } from './route-order.js';

const r = (name: string, weight?: number) => ({ name, ...(weight === undefined ? {} : { weight }) });

/** A seeded generator, so the shares are reproducible. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('route order', () => {
  it('without weights keeps the list order (plain fallback)', () => {
    const routes = [r('a'), r('b'), r('c')];
    expect(orderRoutes(routes, () => 0.5).map((x) => x.name)).toEqual(['a', 'b', 'c']);
  });

  it('groups consecutive weighted entries; an unweighted entry stands alone and keeps its place', () => {
    const routes = [r('a', 1), r('b', 2), r('x'), r('c', 1), r('d', 1)];
    expect(weightGroups(routes).map((g) => g.map((x) => x.name))).toEqual([['a', 'b'], ['x'], ['c', 'd']]);
    for (let i = 0; i < 50; i++) {
      const order = orderRoutes(routes).map((x) => x.name);
      expect(order.slice(0, 2).sort()).toEqual(['a', 'b']);
      expect(order[2]).toBe('x');
      expect(order.slice(3).sort()).toEqual(['c', 'd']);
    }
  });

  it('puts each entry of a group first in proportion to its weight, the others after it as fallbacks', () => {
    const routes = [r('a', 3), r('b', 1), r('last')];
    const random = seeded(42);
    const first = { a: 0, b: 0 } as Record<string, number>;
    for (let i = 0; i < 4_000; i++) {
      const order = orderRoutes(routes, random).map((x) => x.name);
      expect(order).toHaveLength(3);
      expect(order[2]).toBe('last');
      first[order[0]]++;
    }
    expect(first.a / 4_000).toBeGreaterThan(0.72);
    expect(first.a / 4_000).toBeLessThan(0.78);
  });
});
