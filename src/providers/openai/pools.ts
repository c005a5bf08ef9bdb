// One undici Pool per upstream origin, kept alive between requests: a chat request reuses a warm
// connection instead of paying TCP and TLS setup, which is most of a gateway's added latency.
import { Pool } from 'undici';

export interface PoolOptions {
  /** Bounds the wait for response headers and for each gap between body bytes (PROVIDER_TIMEOUT_MS). */
  timeoutMs: number;
  /** Open connections per origin; further requests queue. */
  connections?: number;
}

export class UpstreamPools {
  private readonly pools = new Map<string, Pool>();

  constructor(private readonly options: PoolOptions) {}

  get(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, {
        connections: this.options.connections ?? 1024,
        pipelining: 1,
        keepAliveTimeout: 30_000,
        keepAliveMaxTimeout: 600_000,
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
        connect: { timeout: 10_000 },
      });
      this.pools.set(origin, pool);
    }
    return pool;
  }

  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((pool) => pool.close().catch(() => pool.destroy())));
  }
}
