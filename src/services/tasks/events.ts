// In-process task signals: "a task was created" wakes the embedded runner at once instead of at its
// next poll tick; "a task became final" wakes waiters such as the synchronous image endpoint.
// Across processes the database stays the source of truth (waiters also re-read the row).
import { EventEmitter } from 'node:events';

export class TaskEvents {
  private readonly emitter = new EventEmitter();
  /** Webhook senders running in this process (see deliversWebhooks). */
  private webhookSenders = 0;

  constructor() {
    // One listener per waiting request: many are normal, not a leak.
    this.emitter.setMaxListeners(0);
  }

  created(): void {
    this.emitter.emit('created');
  }

  onCreated(listener: () => void): () => void {
    this.emitter.on('created', listener);
    return () => this.emitter.off('created', listener);
  }

  finished(taskId: string): void {
    this.emitter.emit(`finished:${taskId}`);
    this.emitter.emit('finished');
  }

  /** Any task became final in this process (its webhook, if any, is now in the outbox). */
  onFinished(listener: () => void): () => void {
    this.emitter.on('finished', listener);
    return () => this.emitter.off('finished', listener);
  }

  /**
   * A webhook sender runs in this process until the returned function is called: the webhooks of
   * the tasks this process finishes are delivered here, nudged in-process (onFinished).
   */
  webhookSenderStarted(): () => void {
    this.webhookSenders++;
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      this.webhookSenders--;
    };
  }

  /** Whether a webhook sender runs in this process. */
  get deliversWebhooks(): boolean {
    return this.webhookSenders > 0;
  }

  /** Resolves when `taskId` is reported final in this process, or after `ms`, whichever is first. */
  waitForFinished(taskId: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const event = `finished:${taskId}`;
      const done = () => {
        clearTimeout(timer);
        this.emitter.off(event, done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.emitter.once(event, done);
    });
  }
}
