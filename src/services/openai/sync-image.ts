// POST /v1/images/generations: create an image task through the create-task use case, then wait for
// its final state and answer with the image (or the failure). With an Idempotency-Key the key is
// claimed in the task's own transaction (state in_progress, bound to the task) and completed with
// the FINAL answer, so a retry replays the image URL without regenerating it.
//
// A claim is "held" by its original request for SYNC_IMAGE_WAIT_MS from when it was made: the
// original answers 504 (not stored: 5xx) at that point at the latest. While it is held, a duplicate
// waits up to 5 s and then gets 409 idempotency_in_progress, as on /generate. Once it is no longer
// held (the original timed out, or its process died), a retry takes over: it waits for the SAME
// task up to SYNC_IMAGE_WAIT_MS, completes the key with the final answer, and never creates a second
// task. Whoever sees the task final first completes the key; the others' writes change nothing.
import { AppError, errorBody } from '../../domain/errors.js';
import { type ImageDatum, imagesResponse, imageUrlsOf } from '../../domain/openai/images-response.js';
import type { ImageRequest } from '../../domain/openai/mapping.js';
import { inOpenAiTerms } from '../../domain/openai/mapping.js';
import { taskFailureError } from '../../domain/openai/task-failure.js';
import { isFinal } from '../../domain/tasks/states.js';
import type { ObjectStore } from '../../objects/object-store.js';
import type { TaskRow } from '../../storage/repositories/tasks.js';
import type { Storage } from '../../storage/storage.js';
import type { AuthenticatedKey } from '../auth.js';
import type { Clock } from '../clock.js';
import {
  type HttpOutcome,
  type IdempotencyService,
  type IdempotentRequest,
  runIdempotent,
} from '../idempotency.js';
import type { TaskEvents } from '../tasks/events.js';
import type { TasksService } from '../tasks/tasks-service.js';
import { readResultObject } from './result-object.js';

export interface SyncImageDeps {
  storage: Storage;
  clock: Clock;
  tasks: TasksService;
  taskEvents: TaskEvents;
  idempotency: IdempotencyService;
  objects: ObjectStore;
}

export interface SyncImageOptions {
  /** SYNC_IMAGE_WAIT_MS: how long a request waits for its image before answering 504. */
  waitMs: number;
  /** How long a duplicate of a held claim waits before 409 (IdempotencyService's 5 s). */
  inProgressWaitMs?: number;
  /** Waiters re-read the database this often, for tasks finished in another process. */
  pollMs?: number;
}

export interface SyncImageInput {
  key: AuthenticatedKey;
  idempotent: IdempotentRequest | undefined;
  /** Parses and maps the body (throws its 4xx); runs only when a task is to be created. */
  prepare: () => Promise<ImageRequest>;
  /** The response_format of the body, for a retry that takes over an existing claim. */
  responseFormat: () => ImageRequest['responseFormat'];
}

export class SyncImageService {
  private readonly inProgressWaitMs: number;
  private readonly pollMs: number;

  constructor(
    private readonly deps: SyncImageDeps,
    private readonly options: SyncImageOptions,
  ) {
    this.inProgressWaitMs = options.inProgressWaitMs ?? 5_000;
    this.pollMs = options.pollMs ?? 250;
  }

  async generate(input: SyncImageInput): Promise<HttpOutcome> {
    const { idempotent } = input;
    if (!idempotent) return this.createAndWait(input, undefined);
    const resumed = await this.resumeClaim(input, idempotent);
    if (resumed) return resumed;
    // No claim bound to a task: a stored answer, a mismatch, or a fresh key; the shared rules apply.
    return runIdempotent(this.deps.idempotency, idempotent, () => this.createAndWait(input, idempotent));
  }

  private async createAndWait(
    input: SyncImageInput,
    idempotent: IdempotentRequest | undefined,
  ): Promise<HttpOutcome> {
    const request = await input.prepare();
    let claimId: number | undefined;
    let task: TaskRow;
    try {
      task = await this.deps.tasks.create({
        key: input.key,
        params: request.params,
        inTransaction: idempotent
          ? async (tx, created) => {
              claimId = await this.deps.idempotency.claimInTransaction(tx, idempotent, created.id);
            }
          : undefined,
      });
    } catch (error) {
      throw error instanceof AppError ? inOpenAiTerms(error, request.origins) : error;
    }
    // The claim is held until created_at + waitMs; answering by then lets a retry take over at once.
    const remaining = task.created_at + this.options.waitMs - this.deps.clock.now();
    const current = await this.deps.tasks.waitForFinal(input.key.accountId, task.id, Math.max(0, remaining));
    if (!isFinal(current.status)) throw this.notReady(current.id, idempotent !== undefined);
    return this.finalAnswer(current, request.responseFormat, claimId, false);
  }

  /** A retry or a concurrent duplicate of a request whose claim is bound to a task; see the header. */
  private async resumeClaim(
    input: SyncImageInput,
    idempotent: IdempotentRequest,
  ): Promise<HttpOutcome | undefined> {
    const started = this.deps.clock.now();
    for (;;) {
      const now = this.deps.clock.now();
      const claim = await this.deps.storage.idempotency.find(idempotent.keyId, idempotent.idemKey, now);
      if (claim?.state !== 'in_progress' || claim.task_id === null) return undefined;
      if (claim.fingerprint !== idempotent.fingerprint)
        throw new AppError('idempotency_key_reused', undefined, 'Idempotency-Key');
      const task = await this.deps.tasks.getForOwner(input.key.accountId, claim.task_id);
      if (isFinal(task.status)) return this.finalAnswer(task, input.responseFormat(), claim.id, true);

      const heldUntil = claim.created_at + this.options.waitMs;
      const held = now < heldUntil;
      const deadline = held ? started + this.inProgressWaitMs : started + this.options.waitMs;
      if (now >= deadline) {
        if (held)
          throw new AppError('idempotency_in_progress', undefined, 'Idempotency-Key', {
            headers: { 'Retry-After': '1' },
          });
        throw this.notReady(task.id, true);
      }
      const wake = Math.min(deadline, held ? heldUntil : deadline) - now;
      await this.deps.taskEvents.waitForFinished(task.id, Math.max(1, Math.min(wake, this.pollMs)));
    }
  }

  /**
   * The answer for a final task; with a claim, also its stored answer. A 4xx (the provider refused
   * the prompt or the parameters) is stored like any 4xx; a 5xx is not: the claim is dropped, so a
   * retry tries again with a new task (the failed one was refunded).
   */
  private async finalAnswer(
    task: TaskRow,
    responseFormat: ImageRequest['responseFormat'],
    claimId: number | undefined,
    replayed: boolean,
  ): Promise<HttpOutcome> {
    let outcome: HttpOutcome;
    if (task.status === 'completed') {
      outcome = {
        status: 200,
        body: imagesResponse(task.created_at, await this.imageData(task, responseFormat)),
      };
    } else {
      const failure = taskFailureError(task.id, task.error);
      if (failure.status >= 500) {
        if (claimId !== undefined) await this.deps.idempotency.abandon(claimId);
        throw failure;
      }
      outcome = { status: failure.status, body: errorBody(failure) };
    }
    if (claimId !== undefined) await this.deps.idempotency.complete(claimId, outcome);
    return replayed ? { ...outcome, replayed } : outcome;
  }

  private async imageData(
    task: TaskRow,
    responseFormat: ImageRequest['responseFormat'],
  ): Promise<ImageDatum[]> {
    const urls = imageUrlsOf(task.result);
    if (responseFormat === 'url') return urls.map((url) => ({ url }));
    return Promise.all(
      urls.map(async (url) => ({
        b64_json: (await readResultObject(this.deps.objects, url)).toString('base64'),
      })),
    );
  }

  /** 504 with the task id. Without an Idempotency-Key an automatic retry would start a second task. */
  private notReady(taskId: string, idempotent: boolean): AppError {
    const seconds = Math.round(this.options.waitMs / 100) / 10;
    return new AppError(
      'upstream_timeout',
      `The image is not ready after ${seconds} s. It is still being generated: poll GET /tasks/${taskId}` +
        (idempotent ? ', or repeat this request with the same Idempotency-Key' : ''),
      null,
      { headers: idempotent ? {} : { 'x-should-retry': 'false' }, body: { task_id: taskId } },
    );
  }
}
