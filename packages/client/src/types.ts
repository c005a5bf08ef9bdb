// The public types, taken from the types generated from the server's OpenAPI document
// (src/generated/openapi.ts), so they follow the API without hand copies. The request and answer
// bodies are read off the operations by path, whatever the document names its components.
import type { components, paths } from './generated/openapi.js';

type Get<P extends keyof paths> = paths[P] extends { get: infer Op } ? Op : never;
type Post<P extends keyof paths> = paths[P] extends { post: infer Op } ? Op : never;

/** The JSON body of an operation's answer with `status`; `Fallback` where the document has none. */
type JsonAnswer<Op, Status extends number, Fallback = unknown> = Op extends {
  responses: { [S in Status]: { content: { 'application/json': infer Body } } };
}
  ? Body
  : Fallback;

type JsonRequest<Op> = Op extends { requestBody?: infer Body }
  ? [NonNullable<Body>] extends [never]
    ? never
    : NonNullable<Body> extends { content: { 'application/json': infer Json } }
      ? Json
      : never
  : never;

type Schemas = components extends { schemas: infer S } ? S : never;

/** POST /generate's body as the document describes it, or a loose shape where it does not. */
type DocumentedGenerateRequest = [JsonRequest<Post<'/generate'>>] extends [never]
  ? { params: { model_name: string; [param: string]: unknown } }
  : JsonRequest<Post<'/generate'>>;

/** POST /generate's body: `{params}`, with `params` one schema per model (discriminated by model_name). */
export type GenerateRequest = [Schemas] extends [never]
  ? DocumentedGenerateRequest
  : Schemas extends { GenerateRequest: infer Request }
    ? Request
    : DocumentedGenerateRequest;

/**
 * The generation parameters of one model: `model_name` picks the model and with it the parameters
 * that type-check (e.g. `duration` and `aspect_ratio` for seedance-2). `webhook_url` goes here too.
 */
export type GenerateParams = GenerateRequest extends { params: infer P } ? P : never;

/** The public model ids that POST /generate accepts. */
export type MediaModelName = GenerateParams extends { model_name: infer M } ? M : string;

/** POST /generate's 202 answer. */
export type GenerateResponse = JsonAnswer<Post<'/generate'>, 202, { task_id: string }>;

/** A task as GET /tasks/{task_id} answers it. */
export type Task = JsonAnswer<Get<'/tasks/{task_id}'>, 200>;

export type TaskStatus = Task extends { status: infer S } ? S : string;

/** A task's `result` once it is completed: a video (`video_url`, `duration`) or an image (`image_url`, `width`, `height`, and `images` when there are several). */
export type TaskResult = NonNullable<Task extends { result: infer R } ? R : never>;

/** A task that ended in `completed`: `result` is set. */
export type CompletedTask = Task & { status: 'completed'; result: TaskResult; error: null };

/** A page of GET /tasks. */
export type TaskList = JsonAnswer<Get<'/tasks'>, 200>;

/** Filters and cursor of GET /tasks. */
export interface ListTasksQuery {
  /** Tasks per page, 1–100 (default 20). */
  limit?: number;
  /** The previous page's `next_cursor`. */
  after?: string;
  status?: 'pending' | 'processing' | 'completed' | 'failed';
  /** Only tasks of this model. */
  model?: string;
}

/** GET /me/balance: the calling key's balance in rubles. */
export type Balance = JsonAnswer<Get<'/me/balance'>, 200, { key_balance: number }>;

/** GET /me/keys: the calling key's account and its keys. */
export type AccountKeys = JsonAnswer<Get<'/me/keys'>, 200, Record<string, unknown>>;

/** An entry of GET /public/models. */
export type Model =
  JsonAnswer<Get<'/public/models'>, 200, Array<Record<string, unknown>>> extends Array<infer M> ? M : never;

/** GET /public/models/{id}: the entry plus its params JSON Schema and an example body. */
export type ModelDetail = JsonAnswer<Get<'/public/models/{id}'>, 200>;

type WebhookBody = components['schemas']['WebhookEvent'];

/** The body of a webhook request: the task's final state (a completed task always has its result). */
export type WebhookEvent =
  | (Extract<WebhookBody, { status: 'completed' }> & { result: TaskResult })
  | Extract<WebhookBody, { status: 'failed' }>;
