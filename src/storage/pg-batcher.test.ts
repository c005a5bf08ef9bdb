// The batcher's scheduling, without a database: a lone call runs at once, calls that arrive while
// one is in flight go together, declined items run alone, and deadlocks are retried.
import { describe, expect, it } from 'vitest';
import { PgBatcher } from './pg-batcher.js';

const deadlock = () => Object.assign(new Error('deadlock detected'), { code: '40P01' });

describe('PgBatcher', () => {
  it('runs a lone call alone, and the calls that arrive meanwhile as one batch, in arrival order', async () => {
    const batches: number[][] = [];
    const batcher = new PgBatcher<number, string>(
      async (n) => {
        batches.push([n]);
        await new Promise((resolve) => setTimeout(resolve, 5));
        return `one ${n}`;
      },
      async (ns) => {
        batches.push(ns);
        return ns.map((n) => (n === 3 ? undefined : `many ${n}`));
      },
    );
    const results = await Promise.all([1, 2, 3, 4].map((n) => batcher.run(n)));
    expect(batches).toEqual([[1], [2, 3, 4], [3]]);
    expect(results).toEqual(['one 1', 'many 2', 'one 3', 'many 4']);
    expect(batcher.stats).toMatchObject({ calls: 4, statements: 2, largestBatch: 3 });
  });

  it('runs a statement refused for a deadlock again; other errors go to the caller', async () => {
    let attempts = 0;
    const batcher = new PgBatcher<string, string>(
      async (item) => {
        if (item === 'bad') throw new Error('boom');
        if (++attempts < 3) throw deadlock();
        return 'ok';
      },
      async () => {
        throw deadlock();
      },
    );
    expect(await batcher.run('good')).toBe('ok');
    expect(batcher.stats.retries).toBe(2);
    await expect(batcher.run('bad')).rejects.toThrow('boom');
  });

  it('a failed batch statement runs its items one by one', async () => {
    const batcher = new PgBatcher<number, number>(
      async (n) => {
        await new Promise((resolve) => setTimeout(resolve, 2));
        return n * 10;
      },
      async () => {
        throw deadlock();
      },
    );
    expect(await Promise.all([1, 2, 3].map((n) => batcher.run(n)))).toEqual([10, 20, 30]);
  });
});
