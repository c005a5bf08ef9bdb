// The adapter contract between the task runner and an upstream that generates video or images.
// The runner submits once, stores the returned job id BEFORE it polls, and from then on only polls:
// an adapter must be able to resume a job from its id (plus the task), in any process. Adapters
// never decide money or task state: they report what the upstream said, as one of these outcomes.
import type { Readable } from 'node:stream';
import type { FailureKind } from '../domain/tasks/failures.js';

export interface ProviderTask {
  /** Our task id: adapters pass it upstream as a client reference or idempotency key where they can. */
  id: string;
  /** The public model id and the upstream model name it routes to. */
  modelId: string;
  upstreamModel: string;
  kind: 'video' | 'image';
  /** Validated params with defaults applied, without model_name and webhook_url. */
  params: Record<string, unknown>;
  /** How many times this task was re-queued after "Concurrency limit exceeded". */
  requeues: number;
}

/**
 * Why an upstream failed a job or refused a submit. The runner maps the kind to the client-facing
 * message of the spec (see domain/tasks/failures.ts); only `params` may carry its own message, and
 * `detail` (the upstream's full answer) goes to the logs only.
 */
export type { FailureKind } from '../domain/tasks/failures.js';

export interface ProviderFailure {
  kind: FailureKind;
  /** For `params` only: the parameter message shown to the client (e.g. "duration must be 5 or 10"). */
  message?: string;
  /** The upstream's answer (status, code, body excerpt), for the logs. Never shown to a client. */
  detail?: string;
}

/** What the upstream reports it used: the base of token-billed settlement and of the metrics. */
export interface ProviderUsage {
  tokens?: number;
  seconds?: number;
  images?: number;
}

/**
 * One generated file: bytes we already hold, a stream the adapter opens (downloads that need our
 * credentials), or a public URL the runner downloads (streamed, size-capped, no redirects).
 */
export interface ProviderOutput {
  source:
    | { kind: 'bytes'; data: Buffer }
    | { kind: 'stream'; open: () => Promise<Readable> }
    | { kind: 'url'; url: string };
  contentType?: string;
  width?: number;
  height?: number;
  /** Video length in seconds. */
  durationSec?: number;
  /** When the upstream deletes the file (epoch ms), if it says so: for the logs and metrics. */
  expiresAt?: number;
}

export type SubmitOutcome =
  | { status: 'submitted'; jobId: string; retryAfterMs?: number }
  /**
   * The upstream answered with the result at once (a synchronous API, or the simulator at 0 ms):
   * there is no job left to resume, so the task is finalized in one step with `jobId` recorded.
   */
  | { status: 'succeeded'; jobId: string; outputs: ProviderOutput[]; usage?: ProviderUsage }
  /** "Concurrency limit exceeded" or a rate limit: nothing was started; re-queued (or next route). */
  | { status: 'busy'; retryAfterMs?: number }
  /** Refused: nothing was started. `overload`, `upstream` and 5xx answers move to the next route. */
  | { status: 'failed'; failure: ProviderFailure }
  /**
   * The request was sent and the connection broke before an answer (reset, timeout): a job may have
   * started. The hold is kept, the task is never submitted again, and the runner reconciles.
   */
  | { status: 'uncertain'; detail: string };

export type PollOutcome =
  | { status: 'running'; retryAfterMs?: number }
  | { status: 'succeeded'; outputs: ProviderOutput[]; usage?: ProviderUsage }
  | { status: 'failed'; failure: ProviderFailure }
  /** The job was dropped for lack of capacity; the task is re-queued and submitted again later. */
  | { status: 'busy' };

/** What a lookup by client reference found after an uncertain submit. */
export type ReconcileOutcome =
  /** The upstream has a job for this task: it is recorded and polled from now on. */
  | { status: 'found'; jobId: string }
  /** The upstream answered and has no job for this task. */
  | { status: 'not_found' }
  /** The lookup could not tell (no such API, or it failed): try again later. */
  | { status: 'unknown' };

/** An upstream webhook delivery, as received by POST /hooks/{provider}. */
export interface IncomingHook {
  headers: Record<string, string | string[] | undefined>;
  rawBody: Buffer;
  /** The query of our callback URL: `task` (our task id) is set when the URL came from us. */
  query: Record<string, string | undefined>;
}

export type HookOutcome =
  /** Verified, or only a hint: either way the runner polls the job now, and never trusts the body. */
  | { status: 'accepted'; jobId?: string; taskId?: string }
  /** The signature did not verify: nothing changes. */
  | { status: 'forged' };

export interface SubmitContext {
  /**
   * Our callback URL for this task (`{PUBLIC_URL}/hooks/{provider}?task=…&token=…`), for upstreams
   * that notify on completion. Undefined when the operator turned callbacks off.
   */
  callbackUrl?: string;
}

export interface TaskProvider {
  /** The adapter type, for logs and metrics. */
  readonly type: string;
  submit(task: ProviderTask, context?: SubmitContext): Promise<SubmitOutcome>;
  poll(jobId: string, task: ProviderTask): Promise<PollOutcome>;
  /** Best effort: asks the upstream to stop a job (at the deadline). Throws when the call failed. */
  cancel?(jobId: string, task: ProviderTask): Promise<void>;
  /** After an uncertain submit: finds the job by our task id where the API can. */
  reconcile?(task: ProviderTask): Promise<ReconcileOutcome>;
  /** Verifies an upstream webhook where the provider signs, and names the job it is about. */
  receiveHook?(hook: IncomingHook): Promise<HookOutcome>;
  /** One cheap authenticated call (never a generation), for `gengate providers check`. */
  check?(): Promise<ProviderCheck>;
}

export interface ProviderCheck {
  reachable: boolean;
  authOk: boolean;
  /** The upstream's answer when something is wrong. */
  detail?: string;
}
