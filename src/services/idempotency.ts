// Idempotency-Key for the POSTs that create tasks (POST /generate, /v1/images/generations,
// /v1/videos). The key row is written in the SAME transaction as the task and its hold, so a
// committed task always has its cached answer and two requests with one key can never both create
// a task: the second sees the committed row, or its insert finds the row taken (PostgreSQL waits on
// the unique index), rolls back everything it wrote and replays the stored answer instead.
// 2xx and 4xx answers are stored (a 402 replays even after a top-up); 5xx never is.
import { AppError, errorBody } from '../domain/errors.js';
import type { IdempotencyRow } from '../storage/repositories/idempotency.js';
import type { Storage } from '../storage/storage.js';
import type { Clock } from './clock.js';

/** One idempotent request: the calling API key, its Idempotency-Key and the request fingerprint. */
export interface IdempotentRequest {
  keyId: number;
  idemKey: string;
  fingerprint: string;
}

export interface HttpOutcome {
  status: number;
  body: unknown;
  /** True when the answer is a stored one (sent with `Idempotent-Replayed: true`). */
  replayed?: boolean;
}

/** Thrown inside the creating transaction when the key is already taken; the caller replays. */
export class IdempotencyKeyTaken extends Error {
  constructor() {
    super('Idempotency-Key already taken by a concurrent request');
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class IdempotencyService {
  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
    private readonly ttlMs: number,
    /** How long a duplicate waits for an in-progress original before answering 409. */
    private readonly inProgressWaitMs = 5_000,
    private readonly pollMs = 50,
  ) {}

  /**
   * The stored answer for this request, if any. Throws 422 when the key was used with another body,
   * and 409 (with Retry-After) when the original is still in progress after the wait.
   */
  async lookup(request: IdempotentRequest): Promise<HttpOutcome | undefined> {
    const deadline = this.clock.now() + this.inProgressWaitMs;
    for (;;) {
      const row = await this.storage.idempotency.find(request.keyId, request.idemKey, this.clock.now());
      if (!row) return undefined;
      if (row.fingerprint !== request.fingerprint)
        throw new AppError('idempotency_key_reused', undefined, 'Idempotency-Key');
      if (row.state === 'done') return replayOf(row);
      if (this.clock.now() >= deadline) {
        throw new AppError('idempotency_in_progress', undefined, 'Idempotency-Key', {
          headers: { 'Retry-After': '1' },
        });
      }
      await sleep(this.pollMs);
    }
  }

  private row(
    request: IdempotentRequest,
    fields: { state: 'in_progress' | 'done'; status: number | null; body: unknown; taskId: string | null },
  ) {
    const now = this.clock.now();
    return {
      keyId: request.keyId,
      idemKey: request.idemKey,
      fingerprint: request.fingerprint,
      state: fields.state,
      responseStatus: fields.status,
      responseBody: fields.body === undefined ? null : JSON.stringify(fields.body),
      taskId: fields.taskId,
      now,
      expiresAt: now + this.ttlMs,
    };
  }

  /** Inside the creating transaction: stores the final answer with the task. */
  async storeInTransaction(
    tx: Storage,
    request: IdempotentRequest,
    response: HttpOutcome,
    taskId: string | null,
  ): Promise<void> {
    const id = await tx.idempotency.tryInsert(
      this.row(request, { state: 'done', status: response.status, body: response.body, taskId }),
    );
    if (id === undefined) throw new IdempotencyKeyTaken();
  }

  /**
   * Inside the creating transaction: claims the key while the answer is not known yet (the
   * synchronous image endpoint). Finish with `complete` or `abandon`; duplicates wait meanwhile.
   */
  async claimInTransaction(tx: Storage, request: IdempotentRequest, taskId: string | null): Promise<number> {
    const id = await tx.idempotency.tryInsert(
      this.row(request, { state: 'in_progress', status: null, body: undefined, taskId }),
    );
    if (id === undefined) throw new IdempotencyKeyTaken();
    return id;
  }

  /** Stores the answer of a claimed key. A 5xx is not stored: the claim is dropped instead. */
  async complete(claimId: number, response: HttpOutcome): Promise<void> {
    if (response.status >= 500) return this.abandon(claimId);
    await this.storage.idempotency.complete(claimId, {
      status: response.status,
      body: JSON.stringify(response.body),
    });
  }

  async abandon(claimId: number): Promise<void> {
    await this.storage.idempotency.abandon(claimId);
  }

  /**
   * Stores a 4xx produced before (or instead of) the creating transaction, in its own small write.
   * Returns the stored answer of a concurrent request that got there first, if one did.
   */
  async storeClientError(request: IdempotentRequest, error: AppError): Promise<HttpOutcome | undefined> {
    const id = await this.storage.idempotency.tryInsert(
      this.row(request, { state: 'done', status: error.status, body: errorBody(error), taskId: null }),
    );
    return id === undefined ? this.lookup(request) : undefined;
  }

  async purgeExpired(now: number): Promise<number> {
    return this.storage.idempotency.purgeExpired(now);
  }
}

function replayOf(row: IdempotencyRow): HttpOutcome {
  return {
    status: Number(row.response_status),
    body: row.response_body === null ? null : JSON.parse(row.response_body),
    replayed: true,
  };
}

/**
 * Wraps an idempotent POST. Without a key it just runs `execute`. With one: a stored answer is
 * replayed; otherwise `execute` runs and must store its success inside its own transaction (through
 * `storeInTransaction` or `claimInTransaction`). A 4xx it throws is stored; a 5xx is not. When the
 * key was taken by a concurrent request meanwhile, that request's answer is replayed.
 */
export async function runIdempotent(
  service: IdempotencyService,
  request: IdempotentRequest | undefined,
  execute: () => Promise<HttpOutcome>,
): Promise<HttpOutcome> {
  if (!request) return execute();
  const stored = await service.lookup(request);
  if (stored) return stored;
  try {
    return await execute();
  } catch (error) {
    if (error instanceof IdempotencyKeyTaken) {
      const winner = await service.lookup(request);
      if (winner) return winner;
      // The original was abandoned (it ended in a 5xx) between our insert and this read.
      throw new AppError('idempotency_in_progress', undefined, 'Idempotency-Key', {
        headers: { 'Retry-After': '1' },
      });
    }
    if (error instanceof AppError && error.status >= 400 && error.status < 500) {
      const winner = await service.storeClientError(request, error);
      if (winner) return winner;
    }
    throw error;
  }
}

/** Purges expired keys; the janitor calls it. */
export async function purgeExpiredIdempotencyKeys(storage: Storage, now: number): Promise<number> {
  return storage.idempotency.purgeExpired(now);
}
