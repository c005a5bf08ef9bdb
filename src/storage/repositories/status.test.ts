// Storage contract: the status page's aggregates and the worker heartbeats, on SQLite and (when
// reachable) PostgreSQL. Rows are written with chosen times, so every figure is known exactly.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidV7 } from '../../domain/ids.js';
import { TASK_FAILURE } from '../../domain/tasks/states.js';
import { ENGINES, openTestDb, type TestDb } from '../../testing/db.js';
import { type SeededKey, seedKey } from '../../testing/storage-fixtures.js';
import { Storage } from '../storage.js';
import { StatusRepository, type StatusWindow, uuidV7LowerBound } from './status.js';
import { WorkerHeartbeatsRepository } from './worker-heartbeats.js';

const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);
const WINDOW: StatusWindow = {
  since: NOW - HOUR,
  recentSince: NOW - 15 * 60_000,
  createdSince: NOW - 3 * HOUR,
};

describe('uuidV7LowerBound', () => {
  it('sorts at or below every uuidV7 of that millisecond and later, above every earlier one', () => {
    for (const t of [0, 1, NOW - 1, NOW, NOW + 1, 2 ** 47]) {
      const bound = uuidV7LowerBound(t);
      expect(uuidV7(t) >= bound).toBe(true);
      expect(uuidV7(t + 1) >= bound).toBe(true);
      if (t > 0) expect(uuidV7(t - 1) < bound).toBe(true);
    }
  });
});

describe.each(ENGINES)('status repository on %s', (engine) => {
  let db: TestDb;
  let storage: Storage;
  let status: StatusRepository;
  let key: SeededKey;

  async function task(options: {
    kind: string;
    provider: string;
    status: 'pending' | 'processing' | 'completed' | 'failed';
    createdAt: number;
    finishedAt?: number;
    error?: string;
    runAt?: number;
  }): Promise<void> {
    await storage.db
      .insertInto('tasks')
      .values({
        id: uuidV7(options.createdAt),
        account_id: key.accountId,
        key_id: key.keyId,
        model_id: options.kind === 'video' ? 'seedance-2' : 'flux-1-1-pro',
        billing_model_id: options.kind === 'video' ? 'seedance-2' : 'flux-1-1-pro',
        kind: options.kind,
        status: options.status,
        params: '{}',
        hold_amount: 0,
        attempts: 1,
        requeues: 0,
        processing_ms: 0,
        provider: options.provider,
        error: options.error ?? null,
        run_at: options.runAt ?? options.createdAt,
        created_at: options.createdAt,
        updated_at: options.finishedAt ?? options.createdAt,
        finished_at: options.finishedAt ?? null,
      })
      .execute();
  }

  async function chat(model: string, status: string, createdAt: number, latencyMs: number): Promise<void> {
    await storage.db
      .insertInto('usage_records')
      .values({
        id: `chat_${uuidV7(createdAt)}`,
        account_id: key.accountId,
        key_id: key.keyId,
        model_id: model,
        input_tokens: 10,
        output_tokens: 10,
        cost: 0,
        status,
        latency_ms: latencyMs,
        created_at: createdAt,
      })
      .execute();
  }

  beforeAll(async () => {
    db = await openTestDb(engine);
    storage = Storage.from(db);
    status = new StatusRepository(storage.db);
    key = await seedKey(storage);

    // Video, in the window: three succeeded (10, 20, 40 s to result) and one refused prompt; a
    // task created two hours ago that finished in the window counts too.
    await task({
      kind: 'video',
      provider: 'fal',
      status: 'completed',
      createdAt: NOW - 50 * 60_000,
      finishedAt: NOW - 50 * 60_000 + 10_000,
    });
    await task({
      kind: 'video',
      provider: 'fal',
      status: 'completed',
      createdAt: NOW - 10 * 60_000,
      finishedAt: NOW - 10 * 60_000 + 20_000,
    });
    await task({
      kind: 'video',
      provider: 'fal',
      status: 'completed',
      createdAt: NOW - 2 * HOUR,
      finishedAt: NOW - 30 * 60_000,
    });
    await task({
      kind: 'video',
      provider: 'fal',
      status: 'failed',
      createdAt: NOW - 5 * 60_000,
      finishedAt: NOW - 4 * 60_000,
      error: TASK_FAILURE.rejected,
    });
    // Image: two succeeded (4 and 6 s), two provider failures, recent.
    await task({
      kind: 'image',
      provider: 'replicate',
      status: 'completed',
      createdAt: NOW - 60_000,
      finishedAt: NOW - 56_000,
    });
    await task({
      kind: 'image',
      provider: 'replicate',
      status: 'completed',
      createdAt: NOW - 60_000,
      finishedAt: NOW - 54_000,
    });
    await task({
      kind: 'image',
      provider: 'replicate',
      status: 'failed',
      createdAt: NOW - 60_000,
      finishedAt: NOW - 50_000,
      error: TASK_FAILURE.overload,
    });
    await task({
      kind: 'image',
      provider: 'replicate',
      status: 'failed',
      createdAt: NOW - 30 * 60_000,
      finishedAt: NOW - 29 * 60_000,
      error: TASK_FAILURE.timeout,
    });
    // Outside the window, or not finished: never counted.
    await task({
      kind: 'video',
      provider: 'fal',
      status: 'completed',
      createdAt: NOW - 3 * HOUR,
      finishedAt: NOW - 2 * HOUR,
    });
    await task({ kind: 'video', provider: 'fal', status: 'processing', createdAt: NOW - 60_000 });
    await task({
      kind: 'image',
      provider: 'replicate',
      status: 'pending',
      createdAt: NOW - 90_000,
      runAt: NOW - 80_000,
    });
    await task({
      kind: 'image',
      provider: 'replicate',
      status: 'pending',
      createdAt: NOW - 10_000,
      runAt: NOW + 60_000,
    });

    // Text: completed in 100, 300, 200, 400 ms (median 250), one failed, one cancelled (not counted),
    // one pending and one from two hours ago.
    await chat('gpt-4o', 'completed', NOW - 40 * 60_000, 100);
    await chat('gpt-4o', 'completed', NOW - 5 * 60_000, 300);
    await chat('claude-sonnet-4', 'completed', NOW - 4 * 60_000, 200);
    await chat('claude-sonnet-4', 'completed', NOW - 3 * 60_000, 400);
    await chat('claude-sonnet-4', 'failed', NOW - 2 * 60_000, 50);
    await chat('gpt-4o', 'cancelled', NOW - 60_000, 10);
    await chat('gpt-4o', 'pending', NOW - 1_000, 0);
    await chat('gpt-4o', 'completed', NOW - 2 * HOUR, 999);
  });
  afterAll(() => db.dispose());

  it('counts finished tasks per family with the median time to result', async () => {
    const families = await status.taskFamilies(WINDOW);
    expect(families.get('video')).toEqual({ succeeded: 3, failed: 1, medianMs: 20_000 });
    // An even count: the mean of the two middle values.
    expect(families.get('image')).toEqual({ succeeded: 2, failed: 2, medianMs: 5_000 });
    expect(families.size).toBe(2);
  });

  it('counts finished chat requests as the text family', async () => {
    expect(await status.chatFamily(WINDOW)).toEqual({ succeeded: 4, failed: 1, medianMs: 250 });
  });

  it('counts work per provider, recent failures without refused prompts', async () => {
    const providers = await status.taskProviders(WINDOW);
    expect(providers.get('fal')).toEqual({ succeeded: 3, failed: 1, recentSucceeded: 1, recentFailed: 0 });
    expect(providers.get('replicate')).toEqual({
      succeeded: 2,
      failed: 2,
      recentSucceeded: 2,
      recentFailed: 1,
    });
    const models = await status.chatModels(WINDOW);
    expect(models.get('gpt-4o')).toEqual({ succeeded: 2, failed: 0, recentSucceeded: 1, recentFailed: 0 });
    expect(models.get('claude-sonnet-4')).toEqual({
      succeeded: 2,
      failed: 1,
      recentSucceeded: 2,
      recentFailed: 1,
    });
  });

  it('finds how long the oldest runnable task has waited', async () => {
    expect(await status.oldestRunnableSince(NOW)).toBe(NOW - 80_000);
    expect(await status.oldestRunnableSince(NOW - 85_000)).toBeNull();
  });

  it('has nothing to count in an empty window', async () => {
    const later: StatusWindow = { since: NOW + HOUR, recentSince: NOW + HOUR, createdSince: NOW };
    expect((await status.taskFamilies(later)).size).toBe(0);
    expect(await status.chatFamily(later)).toEqual({ succeeded: 0, failed: 0, medianMs: null });
    expect((await status.taskProviders(later)).size).toBe(0);
  });

  it('counts live workers by heartbeat and forgets stopped ones', async () => {
    const heartbeats = new WorkerHeartbeatsRepository(storage.db);
    await heartbeats.beat('w1', NOW - 60_000, NOW - 20_000);
    await heartbeats.beat('w2', NOW - 60_000, NOW - 2_000);
    await heartbeats.beat('w3', NOW - 60_000, NOW - 1_000);
    expect(await heartbeats.liveCount(NOW - 15_000)).toBe(2);
    await heartbeats.beat('w1', NOW - 60_000, NOW);
    expect(await heartbeats.liveCount(NOW - 15_000)).toBe(3);
    await heartbeats.remove('w3');
    expect(await heartbeats.liveCount(NOW - 15_000)).toBe(2);
    // A row stale for a day is swept by the next beat of any worker.
    await heartbeats.beat('w2', NOW - 60_000, NOW + 2 * 86_400_000);
    expect(await heartbeats.liveCount(0)).toBe(1);
  });
});
