// Wake-ups across processes through PostgreSQL's LISTEN/NOTIFY. In the scaled-out mode a task is
// created in an API process and claimed in a worker process, which only saw it at its next poll
// (WORKER_POLL_INTERVAL_MS). Now the process that created work sends a NOTIFY after its commit, and
// every process that has a listener nudges its loop at once. Polling stays as the fallback: a
// notification lost while a listener reconnects costs at most one poll interval.
//
// - Notifications carry no payload and are coalesced: at most one NOTIFY per channel is in flight,
//   and calls made meanwhile send one more after it (a burst of 5,000 created tasks costs a handful
//   of NOTIFYs, not 5,000).
// - Channels are named after the schema, so gengates sharing a database in different schemas (tests,
//   the bench) do not wake each other.
// - The listener holds one dedicated connection, opened at the first subscription (an API-only
//   process that never subscribes opens none), and reconnects with a back-off when it drops.
import { type Kysely, sql } from 'kysely';
import type pg from 'pg';
import type { Database } from './schema.js';

export type WakeupChannel = 'tasks' | 'webhooks';

/** Signals "there is new work" to loops in every process; in-process only without PostgreSQL. */
export interface Wakeups {
  /** Tell every listening process (this one included) that work of this kind is due. */
  notify(channel: WakeupChannel): void;
  /** Call `listener` when any process notified `channel`, and after a reconnect. */
  on(channel: WakeupChannel, listener: () => void): () => void;
  close(): Promise<void>;
}

/**
 * Wake-ups asked for while one is being sent go out as one, at most this often per channel: under
 * load an API process would otherwise send a NOTIFY per batch of new tasks (a round trip each),
 * while the workers are busy and claim again as soon as a slot frees anyway.
 */
export const NOTIFY_SPACING_MS = 5;
const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 5_000;

export class PgWakeups implements Wakeups {
  private readonly listeners = new Map<WakeupChannel, Set<() => void>>();
  /**
   * Per channel: `pending` a NOTIFY is due (it covers every call made until it is sent), `once` one
   * is in flight, `again` one is in flight and another must follow it (calls made meanwhile may be
   * for work its listeners have already looked for).
   */
  private readonly sending = new Map<WakeupChannel, 'pending' | 'once' | 'again'>();
  /** When each channel's last NOTIFY was sent, for the spacing. */
  private readonly lastSentAt = new Map<WakeupChannel, number>();
  private names: Promise<Record<WakeupChannel, string>> | undefined;
  private client: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private reconnectDelay = RECONNECT_MIN_MS;
  private closed = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly url: string,
    private readonly warn: (message: string, error?: unknown) => void = () => {},
  ) {}

  notify(channel: WakeupChannel): void {
    if (this.closed) return;
    const state = this.sending.get(channel);
    if (state === 'once') this.sending.set(channel, 'again');
    if (state) return;
    this.sending.set(channel, 'pending');
    // Sent once this turn of the event loop is over: the tasks of one batch are announced one by
    // one, and one NOTIFY covers them all (it was two: one at once, one more behind it).
    setImmediate(() => this.sendSpaced(channel));
  }

  /** Sends now, or once NOTIFY_SPACING_MS have passed since the channel's last NOTIFY. */
  private sendSpaced(channel: WakeupChannel): void {
    const wait = (this.lastSentAt.get(channel) ?? Number.NEGATIVE_INFINITY) + NOTIFY_SPACING_MS - Date.now();
    if (wait > 0) setTimeout(() => void this.send(channel), wait).unref?.();
    else void this.send(channel);
  }

  private async send(channel: WakeupChannel): Promise<void> {
    if (this.closed) return;
    this.sending.set(channel, 'once');
    this.lastSentAt.set(channel, Date.now());
    try {
      const name = (await this.channelNames())[channel];
      await sql`select pg_notify(${name}, '')`.execute(this.db);
    } catch (error) {
      // The loops still poll; a lost wake-up costs one poll interval.
      if (!this.closed) this.warn(`NOTIFY ${channel} failed`, error);
    }
    if (this.sending.get(channel) === 'again' && !this.closed) {
      this.sending.set(channel, 'pending');
      this.sendSpaced(channel);
    } else {
      this.sending.delete(channel);
    }
  }

  on(channel: WakeupChannel, listener: () => void): () => void {
    let set = this.listeners.get(channel);
    if (!set) {
      set = new Set();
      this.listeners.set(channel, set);
    }
    set.add(listener);
    if (!this.client && !this.connecting && !this.closed) this.connecting = this.listen();
    return () => set.delete(listener);
  }

  /** Resolves once the listener is connected (tests; the loops do not wait for it). */
  async ready(): Promise<void> {
    await this.connecting;
  }

  private channelNames(): Promise<Record<WakeupChannel, string>> {
    this.names ??= sql<{ schema: string }>`select current_schema() as schema`
      .execute(this.db)
      .then(({ rows }) => {
        // Channel names are identifiers: at most 63 bytes.
        const suffix = (rows[0]?.schema ?? 'public').replace(/[^a-zA-Z0-9_]/g, '_').slice(0, 40);
        return { tasks: `gengate_tasks_${suffix}`, webhooks: `gengate_webhooks_${suffix}` };
      });
    this.names.catch(() => {
      this.names = undefined;
    });
    return this.names;
  }

  private async listen(): Promise<void> {
    try {
      const names = await this.channelNames();
      const { default: pgModule } = await import('pg');
      const client = new pgModule.Client({ connectionString: this.url });
      client.on('error', (error) => this.dropped(client, error));
      client.on('end', () => this.dropped(client));
      await client.connect();
      const byName = new Map(
        Object.entries(names).map(([channel, name]) => [name, channel as WakeupChannel]),
      );
      client.on('notification', (message) => {
        const channel = byName.get(message.channel);
        if (channel) this.fire(channel);
      });
      for (const name of byName.keys()) await client.query(`listen "${name}"`);
      if (this.closed) {
        await client.end().catch(() => {});
        return;
      }
      this.client = client;
      this.reconnectDelay = RECONNECT_MIN_MS;
      // Work may have been created while no one listened.
      for (const channel of this.listeners.keys()) this.fire(channel);
    } catch (error) {
      this.warn('LISTEN failed; polling until it reconnects', error);
      this.scheduleReconnect();
    } finally {
      this.connecting = undefined;
    }
  }

  private dropped(client: pg.Client, error?: unknown): void {
    if (this.client !== client) return;
    this.client = undefined;
    client.end().catch(() => {});
    if (this.closed) return;
    this.warn('the LISTEN connection dropped; polling until it reconnects', error);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      if (!this.client && !this.connecting) this.connecting = this.listen();
    }, this.reconnectDelay);
    this.reconnectTimer.unref?.();
    this.reconnectDelay = Math.min(this.reconnectDelay * 2, RECONNECT_MAX_MS);
  }

  private fire(channel: WakeupChannel): void {
    for (const listener of this.listeners.get(channel) ?? []) listener();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    await this.connecting;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }
}
