// The Gengate client: one object per API key, methods named after what they do.
import { downloadTo } from './download.js';
import {
  ApiError,
  ConnectionError,
  GengateError,
  MaintenanceError,
  RateLimitError,
  TaskFailedError,
  WaitTimeoutError,
} from './errors.js';
import { jitter, sleep } from './time.js';
import { Transport } from './transport.js';
import type {
  AccountKeys,
  Balance,
  CompletedTask,
  GenerateParams,
  GenerateResponse,
  ListTasksQuery,
  Model,
  ModelDetail,
  Task,
  TaskList,
  WebhookEvent,
} from './types.js';
import { type VerifyWebhookOptions, verifyWebhook, type WebhookHeaders } from './webhooks.js';

export interface GengateOptions {
  /** `sk_live_…`; defaults to the GENGATE_API_KEY environment variable where there is one. */
  apiKey?: string;
  /** The server's address, e.g. `https://gen.example.com`; defaults to GENGATE_BASE_URL or http://127.0.0.1:8080. */
  baseUrl?: string;
  /** Retries of an idempotent call after the first attempt (default 2). */
  maxRetries?: number;
  /** Time limit of one HTTP attempt in ms (default 60 000). */
  timeoutMs?: number;
  /** A Retry-After longer than this (ms, default 30 000) is not waited for by a single call: it throws. */
  maxRetryAfterMs?: number;
  /** A fetch implementation (default: the global fetch). */
  fetch?: typeof fetch;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Retries of this call after the first attempt (default: the client's `maxRetries`). */
  maxRetries?: number;
}

export interface GenerateOptions extends CallOptions {
  /** 8–256 printable ASCII characters. Default: a random UUID per call, reused by its retries. */
  idempotencyKey?: string;
}

export interface WaitOptions extends Omit<CallOptions, 'maxRetries'> {
  /** Time between polls in ms, ±20% jitter (default 3000). */
  intervalMs?: number;
  /** Give up (WaitTimeoutError) after this many ms (default 15 minutes). */
  timeoutMs?: number;
  /** Called with the task after every poll. */
  onProgress?: (task: Task) => void;
}

export type RunOptions = GenerateOptions & Omit<WaitOptions, keyof CallOptions>;

export interface DownloadOptions extends CallOptions {}

export interface DownloadResult {
  url: string;
  bytes: number;
  contentType: string | null;
}

const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';
/** A read's request options: every read is idempotent, so it is retried. */
const read = (options: CallOptions) =>
  ({ idempotent: true, signal: options.signal, maxRetries: options.maxRetries }) as const;
const FINAL_STATUSES: ReadonlySet<string> = new Set(['completed', 'failed']);

export class Gengate {
  private readonly transport: Transport;

  constructor(options: GengateOptions = {}) {
    const env = environment();
    const fetchImpl = options.fetch ?? globalThis.fetch;
    if (typeof fetchImpl !== 'function') throw new TypeError('No fetch: pass options.fetch');
    this.transport = new Transport({
      apiKey: options.apiKey ?? env.GENGATE_API_KEY,
      baseUrl: options.baseUrl ?? env.GENGATE_BASE_URL ?? DEFAULT_BASE_URL,
      fetch: fetchImpl,
      maxRetries: options.maxRetries ?? 2,
      timeoutMs: options.timeoutMs ?? 60_000,
      maxRetryAfterMs: options.maxRetryAfterMs ?? 30_000,
      headers: options.headers ?? {},
    });
  }

  /**
   * POST /generate: creates a task and answers `{task_id}` (202). The cost is held on the key.
   * The call carries an Idempotency-Key (a random one unless given), so its retries after a
   * dropped connection or a 5xx never create a second task.
   */
  generate(params: GenerateParams, options: GenerateOptions = {}): Promise<GenerateResponse> {
    return this.transport.json<GenerateResponse>('POST', '/generate', {
      body: JSON.stringify({ params }),
      headers: { 'idempotency-key': options.idempotencyKey ?? randomKey() },
      idempotent: true,
      signal: options.signal,
      maxRetries: options.maxRetries,
    });
  }

  /** GET /tasks/{task_id}. */
  getTask(taskId: string, options: CallOptions = {}): Promise<Task> {
    return this.transport.json<Task>('GET', `/tasks/${encodeURIComponent(taskId)}`, read(options));
  }

  /**
   * Polls the task until it is `completed` or `failed` and answers it (a failed task is answered,
   * not thrown). Polls every `intervalMs` with jitter; waits out 429 (Retry-After), maintenance
   * (503, Retry-After), 5xx and dropped connections until `timeoutMs`.
   */
  async waitForTask(taskId: string, options: WaitOptions = {}): Promise<Task> {
    const intervalMs = options.intervalMs ?? 3_000;
    const timeoutMs = options.timeoutMs ?? 15 * 60_000;
    const deadline = Date.now() + timeoutMs;
    let failures = 0;
    for (;;) {
      let waitMs: number;
      try {
        const task = await this.getTask(taskId, { signal: options.signal, maxRetries: 0 });
        failures = 0;
        options.onProgress?.(task);
        if (FINAL_STATUSES.has(task.status)) return task;
        waitMs = jitter(intervalMs);
      } catch (error) {
        if (!isTransient(error)) throw error;
        failures++;
        const retryAfter = (error as { retryAfter?: number }).retryAfter;
        waitMs = Math.max(
          retryAfter === undefined ? 0 : retryAfter * 1000,
          jitter(Math.min(intervalMs * 2 ** (failures - 1), 30_000)),
        );
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new WaitTimeoutError(taskId, timeoutMs);
      // One last poll at the deadline rather than giving up before it.
      await sleep(Math.min(waitMs, left), options.signal);
    }
  }

  /** generate() then waitForTask(): answers the completed task, or throws TaskFailedError. */
  async run(params: GenerateParams, options: RunOptions = {}): Promise<CompletedTask> {
    const { task_id } = await this.generate(params, options);
    const task = await this.waitForTask(task_id, options);
    if (task.status !== 'completed') throw new TaskFailedError(task);
    return task as CompletedTask;
  }

  /** GET /tasks: a page of the account's tasks, newest first. Pass `next_cursor` as `after` for the next. */
  listTasks(query: ListTasksQuery = {}, options: CallOptions = {}): Promise<TaskList> {
    return this.transport.json<TaskList>('GET', '/tasks', { query: { ...query }, ...read(options) });
  }

  /** Every task matching `query`, newest first, fetching pages as the loop goes. */
  async *iterateTasks(
    query: Omit<ListTasksQuery, 'after'> = {},
    options: CallOptions = {},
  ): AsyncGenerator<Task> {
    let after: string | undefined;
    for (;;) {
      const page = await this.listTasks({ ...query, after }, options);
      yield* page.data;
      if (!page.has_more || !page.next_cursor) return;
      after = page.next_cursor;
    }
  }

  /** GET /me/balance: the calling key's balance in rubles. */
  balance(options: CallOptions = {}): Promise<Balance> {
    return this.transport.json<Balance>('GET', '/me/balance', read(options));
  }

  /** GET /me/keys: the calling key's account and its keys. */
  keys(options: CallOptions = {}): Promise<AccountKeys> {
    return this.transport.json<AccountKeys>('GET', '/me/keys', read(options));
  }

  /** GET /public/models: the active public models with their prices in rubles. */
  models(options: CallOptions = {}): Promise<Model[]> {
    return this.transport.json<Model[]>('GET', '/public/models', read(options));
  }

  /** GET /public/models/{id}: one model with its params JSON Schema and an example request. */
  model(id: string, options: CallOptions = {}): Promise<ModelDetail> {
    return this.transport.json<ModelDetail>('GET', `/public/models/${encodeURIComponent(id)}`, {
      ...read(options),
    });
  }

  /**
   * Downloads a completed task's file (its `video_url` or `image_url`) to a file path (Node, Deno,
   * Bun) or into a WritableStream (anywhere). The file URL needs no key, so none is sent.
   */
  async downloadResult(
    task: Pick<Task, 'task_id' | 'status' | 'result'>,
    destination: string | WritableStream<Uint8Array>,
    options: DownloadOptions = {},
  ): Promise<DownloadResult> {
    const result = (task.result ?? {}) as { video_url?: unknown; image_url?: unknown };
    const url = typeof result.video_url === 'string' ? result.video_url : result.image_url;
    if (task.status !== 'completed' || typeof url !== 'string') {
      throw new GengateError(`Task ${task.task_id} has no result file (status ${task.status})`);
    }
    // The time limit covers the answer's headers only: a large file may take longer to stream.
    const response = await this.transport.send(
      'GET',
      url,
      { idempotent: true, auth: false, signal: options.signal, headers: { accept: '*/*' } },
      async (answer) => answer,
    );
    const bytes = await downloadTo(response, destination, options.signal);
    return { url, bytes, contentType: response.headers.get('content-type') };
  }

  /** Same as the exported verifyWebhook(): checks the signature and answers the typed event. */
  verifyWebhook(
    rawBody: string | Uint8Array,
    headers: WebhookHeaders,
    secret: string,
    options?: VerifyWebhookOptions,
  ): Promise<WebhookEvent> {
    return verifyWebhook(rawBody, headers, secret, options);
  }
}

/** Errors a poll outlives: rate limits, maintenance, 5xx and lost connections. */
function isTransient(error: unknown): boolean {
  return (
    error instanceof RateLimitError ||
    error instanceof MaintenanceError ||
    error instanceof ConnectionError ||
    (error instanceof ApiError && error.status >= 500)
  );
}

/**
 * A random UUID (v4) for the Idempotency-Key. crypto.randomUUID exists only in secure contexts of
 * browsers; getRandomValues exists everywhere.
 */
function randomKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function environment(): Record<string, string | undefined> {
  const proc = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  return proc?.env ?? {};
}
