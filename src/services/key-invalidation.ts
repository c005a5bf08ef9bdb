// Tells every process that a key changed (restrictions edited, key deleted), so each auth cache
// evicts it at once. In process for the embedded mode; a Redis pub/sub channel when scaled out.
// The auth cache's short TTL stays as the backstop for a message lost while Redis was unreachable.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

/** Sent instead of a key hash when every cached key must go (e.g. after missed messages). */
export const ALL_KEYS = '*';
export const KEY_INVALIDATION_CHANNEL = 'gengate:keys:invalidate';
/** How long close() waits for publishes in flight: a stalled Redis must not hang a CLI command. */
export const PUBLISH_FLUSH_TIMEOUT_MS = 2_000;

export type InvalidationListener = (keyHash: string) => void;

export interface KeyInvalidation {
  /** Evicts the key in this process at once and in every other process as soon as they hear. */
  publish(keyHash: string): void;
  subscribe(listener: InvalidationListener): void;
  start(): Promise<void>;
  /** Waits for publishes still in flight (a CLI command must not exit before they are sent). */
  close(): Promise<void>;
}

export class LocalKeyInvalidation implements KeyInvalidation {
  private readonly listeners: InvalidationListener[] = [];

  publish(keyHash: string): void {
    for (const listener of this.listeners) listener(keyHash);
  }

  subscribe(listener: InvalidationListener): void {
    this.listeners.push(listener);
  }

  async start(): Promise<void> {}

  async close(): Promise<void> {}
}

export class RedisKeyInvalidation implements KeyInvalidation {
  private readonly local = new LocalKeyInvalidation();
  /** Tags our own messages so this process does not evict twice. */
  private readonly instanceId = randomUUID();
  /** Shown by CLIENT LIST, so an operator can tell the subscriber connections apart. */
  readonly connectionName = `gengate-key-invalidation-${this.instanceId}`;
  private readonly pending = new Set<Promise<unknown>>();
  private subscriber: Redis | undefined;

  constructor(
    private readonly publisher: Redis,
    private readonly onError: (message: string, error: unknown) => void,
    private readonly flushTimeoutMs = PUBLISH_FLUSH_TIMEOUT_MS,
  ) {}

  publish(keyHash: string): void {
    this.local.publish(keyHash);
    const sent = this.publisher
      .publish(KEY_INVALIDATION_CHANNEL, `${this.instanceId} ${keyHash}`)
      .catch((error) =>
        this.onError(
          'key invalidation publish failed; other processes catch up through the cache TTL',
          error,
        ),
      )
      .finally(() => this.pending.delete(sent));
    this.pending.add(sent);
  }

  subscribe(listener: InvalidationListener): void {
    this.local.subscribe(listener);
  }

  async start(): Promise<void> {
    // A connection in subscriber mode can run no other command, hence its own connection.
    const subscriber = this.publisher.duplicate({ connectionName: this.connectionName });
    this.subscriber = subscriber;
    subscriber.on('message', (channel: string, message: string) => {
      if (channel !== KEY_INVALIDATION_CHANNEL) return;
      const space = message.indexOf(' ');
      if (space <= 0 || message.slice(0, space) === this.instanceId) return;
      this.local.publish(message.slice(space + 1));
    });
    subscriber.on('error', (error) => this.onError('key invalidation subscriber error', error));
    let starting = true;
    let subscribed = false;
    const subscribe = async (): Promise<void> => {
      try {
        await subscriber.subscribe(KEY_INVALIDATION_CHANNEL);
        subscribed = true;
      } catch (error) {
        this.onError(
          'key invalidation subscribe failed; relying on the cache TTL until Redis is back',
          error,
        );
      }
    };
    subscriber.on('ready', () => {
      if (starting) return;
      // Back after a disconnect: messages sent meanwhile are lost, so forget every cached key.
      // ioredis resubscribes by itself, unless the first subscription never succeeded.
      if (!subscribed) void subscribe();
      this.local.publish(ALL_KEYS);
    });
    // Serve even if this fails: ioredis keeps reconnecting, and the TTL bounds staleness meanwhile.
    await subscribe();
    starting = false;
  }

  async close(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.flushTimeoutMs);
    });
    const outcome = await Promise.race([Promise.allSettled([...this.pending]), waited]);
    clearTimeout(timer);
    if (outcome === 'timeout')
      this.onError(
        'key invalidation publish not confirmed; other processes catch up through the cache TTL',
        new Error(`Redis did not answer within ${this.flushTimeoutMs} ms`),
      );
    this.subscriber?.disconnect();
  }
}
