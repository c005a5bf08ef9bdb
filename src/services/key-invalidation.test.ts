import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { HAVE_REDIS, REDIS_URL } from '../testing/services.js';
import {
  ALL_KEYS,
  type KeyInvalidation,
  LocalKeyInvalidation,
  RedisKeyInvalidation,
} from './key-invalidation.js';

const hash = () => randomBytes(32).toString('hex');

/** Resolves with the first heard hash that passes `accept`, or rejects after `ms`. */
function nextHeard(bus: KeyInvalidation, accept: (h: string) => boolean, ms = 2000): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('nothing heard')), ms);
    bus.subscribe((h) => {
      if (!accept(h)) return;
      clearTimeout(timer);
      resolve(h);
    });
  });
}

describe('LocalKeyInvalidation', () => {
  it('tells every listener at once', () => {
    const bus = new LocalKeyInvalidation();
    const heard: string[][] = [[], []];
    bus.subscribe((h) => heard[0].push(h));
    bus.subscribe((h) => heard[1].push(h));
    bus.publish('abc');
    expect(heard).toEqual([['abc'], ['abc']]);
  });
});

describe.skipIf(!HAVE_REDIS)('RedisKeyInvalidation', () => {
  const cleanup: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  async function startBus(): Promise<{ bus: RedisKeyInvalidation; redis: Redis; errors: unknown[] }> {
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
    const errors: unknown[] = [];
    const bus = new RedisKeyInvalidation(redis, (_message, error) => errors.push(error));
    await bus.start();
    cleanup.push(
      () => redis.disconnect(),
      () => bus.close(),
    );
    return { bus, redis, errors };
  }

  it('evicts in this process at once and reaches another process through Redis', async () => {
    const a = await startBus();
    const b = await startBus();
    const changed = hash();
    const heardOnA: string[] = [];
    a.bus.subscribe((h) => heardOnA.push(h));
    const heardOnB = nextHeard(b.bus, (h) => h === changed);
    a.bus.publish(changed);
    expect(heardOnA).toEqual([changed]); // synchronously, before any round-trip
    expect(await heardOnB).toBe(changed);
    // Our own message comes back from Redis too; it is recognised and not applied twice.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(heardOnA.filter((h) => h === changed)).toEqual([changed]);
  });

  it('close() waits for publishes in flight, so a CLI command does not lose them', async () => {
    const b = await startBus();
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
    const cli = new RedisKeyInvalidation(redis, () => {});
    const changed = hash();
    const heard = nextHeard(b.bus, (h) => h === changed);
    cli.publish(changed);
    await cli.close();
    redis.disconnect();
    expect(await heard).toBe(changed);
  });

  it('forgets every cached key after its subscriber connection comes back', async () => {
    const a = await startBus();
    const admin = new Redis(REDIS_URL);
    cleanup.push(() => admin.disconnect());
    const clients = String(await admin.client('LIST')).split('\n');
    const subscriber = clients.find((line) => line.includes(`name=${a.bus.connectionName}`));
    expect(subscriber).toBeDefined();
    const heardAll = nextHeard(a.bus, (h) => h === ALL_KEYS, 5000);
    await admin.client('KILL', 'ID', /\bid=(\d+)/.exec(subscriber!)![1]);
    expect(await heardAll).toBe(ALL_KEYS);
    // And it is subscribed again: a change elsewhere still arrives.
    const b = await startBus();
    const changed = hash();
    const heard = nextHeard(a.bus, (h) => h === changed, 5000);
    // The resubscription lands just after 'ready', so publish until it is heard.
    const again = setInterval(() => b.bus.publish(changed), 50);
    b.bus.publish(changed);
    await heard.finally(() => clearInterval(again));
  });
});
