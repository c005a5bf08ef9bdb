// The load of a chaos run: tasks of every simulator outcome (some sent with an Idempotency-Key and
// retried, to either API process), streamed chat with client aborts, and CLI top-ups. Every request
// and what came back is recorded for the end checks; connection errors (a process killed under the
// request) are expected and counted, never retried without an Idempotency-Key.
import type { GengateProcess } from './cluster.js';
import type { Random } from './random.js';

export type Directive =
  | 'success'
  | 'reject'
  | 'billing'
  | 'overload'
  | 'params'
  | 'timeout'
  | 'busy'
  | 'tokens';

/** The mix of task outcomes (weights). */
const DIRECTIVES: Record<Directive, number> = {
  success: 52,
  reject: 5,
  billing: 5,
  overload: 5,
  params: 5,
  timeout: 2,
  busy: 10,
  tokens: 6,
};

export interface KeyInfo {
  id: number;
  secret: string;
  /** A key kept short of money: its requests test the 402 path and the no-overdraft rule. */
  poor: boolean;
}

export interface Answer {
  /** HTTP status, or 0 for a connection error (the process died under the request). */
  status: number;
  taskId?: string;
  code?: string;
}

export interface TaskRequest {
  nonce: string;
  directive: Directive;
  key: number;
  idempotencyKey?: string;
  answers: Answer[];
}

export interface ChatRequestRecord {
  mode: 'full' | 'abort' | 'plain' | 'broken';
  status: number;
  outcome: 'completed' | 'aborted' | 'failed' | 'refused' | 'connection_lost';
}

export interface LoadRecords {
  tasks: TaskRequest[];
  chats: ChatRequestRecord[];
  unexpected: string[];
  /** Requests without an answer, by cause. */
  lost: Record<string, number>;
}

const REQUEST_TIMEOUT_MS = 20_000;

function taskParams(random: Random, directive: Directive, nonce: string, webhookUrl: string) {
  const delay = random.int(100, 1_200);
  const tag: Record<Directive, string> = {
    success: `[sim:delay=${delay}]`,
    reject: `[sim:fail=reject] [sim:delay=${delay}]`,
    billing: `[sim:fail=billing] [sim:delay=${delay}]`,
    overload: `[sim:fail=overload] [sim:delay=${delay}]`,
    params: `[sim:fail=params] [sim:delay=${delay}]`,
    timeout: '[sim:fail=timeout]',
    busy: `[sim:busy=1] [sim:delay=${delay}]`,
    tokens: `[sim:tokens=${random.int(20_000, 60_000)}] [sim:delay=${delay}]`,
  };
  const prompt = `chaos ${nonce} ${tag[directive]}`;
  if (directive === 'tokens')
    return { model_name: 'seedance-1-pro', prompt, duration: 5, webhook_url: webhookUrl };
  const model = random.pick(['flux-1-1-pro', 'nano-banana', 'seedance-2', 'kling-2-1']);
  if (model === 'seedance-2')
    return {
      model_name: model,
      prompt,
      aspect_ratio: random.pick(['16:9', '9:16']),
      webhook_url: webhookUrl,
    };
  return { model_name: model, prompt, webhook_url: webhookUrl };
}

export class LoadDriver {
  readonly records: LoadRecords = { tasks: [], chats: [], unexpected: [], lost: {} };
  private stopped = false;
  private sequence = 0;

  constructor(
    private readonly random: Random,
    private readonly apis: GengateProcess[],
    private readonly keys: KeyInfo[],
    private readonly webhookUrl: string,
  ) {}

  stop(): void {
    this.stopped = true;
  }

  /** `concurrency` loops sending tasks until `total` were sent or stop(). */
  async tasks(total: number, concurrency: number): Promise<void> {
    const loop = async () => {
      while (!this.stopped && this.sequence < total) await this.oneTask(this.sequence++);
    };
    await Promise.all(Array.from({ length: concurrency }, loop));
  }

  /** `concurrency` loops of chat requests until stop(). */
  async chats(concurrency: number): Promise<void> {
    const loop = async () => {
      while (!this.stopped) await this.oneChat();
    };
    await Promise.all(Array.from({ length: concurrency }, loop));
  }

  /**
   * A serving API process. While both are down (killed or still starting), wait for one (up to
   * 30 s) rather than count refused connections: a lost answer should mean a process died under it.
   */
  private async api(): Promise<GengateProcess> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const serving = this.apis.filter((a) => a.serving);
      if (serving.length > 0 || Date.now() > deadline)
        return this.random.pick(serving.length > 0 ? serving : this.apis);
      await sleep(50);
    }
  }

  private async oneTask(n: number): Promise<void> {
    const directive = this.random.weighted(DIRECTIVES);
    const nonce = `n${n}-${this.random.int(0, 1e9).toString(36)}`;
    // One request in eight goes to the key kept short of money.
    const keyIndex = this.random.chance(0.125)
      ? this.keys.findIndex((k) => k.poor)
      : this.random.int(0, this.keys.length - 1);
    const key = this.keys[keyIndex];
    const withKey = this.random.chance(0.3);
    const request: TaskRequest = {
      nonce,
      directive,
      key: keyIndex,
      idempotencyKey: withKey ? `chaos-${nonce}` : undefined,
      answers: [],
    };
    this.records.tasks.push(request);
    // The exact bytes are resent: the idempotency fingerprint is over the raw body.
    const body = JSON.stringify({ params: taskParams(this.random, directive, nonce, this.webhookUrl) });
    const send = async () => {
      const answer = await this.post('/generate', key, body, request.idempotencyKey);
      request.answers.push(answer);
      return answer;
    };
    let answer = await send();
    // No process answered: give the restart a moment instead of spinning on refused connections.
    if (answer.status === 0) await sleep(200);
    if (!request.idempotencyKey) return;
    // With a key: retried until an answer comes (a dead process gives none), then once more on
    // purpose, which must replay the same task.
    for (
      let tries = 0;
      (answer.status === 0 || answer.status === 409) && tries < 8 && !this.stopped;
      tries++
    ) {
      await sleep(this.random.int(100, 600));
      answer = await send();
    }
    if (answer.status !== 0 && this.random.chance(0.5)) await send();
  }

  private async post(path: string, key: KeyInfo, body: string, idempotencyKey?: string): Promise<Answer> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${key.secret}`,
      'content-type': 'application/json',
    };
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    try {
      const res = await fetch(`${(await this.api()).url}${path}`, {
        method: 'POST',
        headers,
        body,
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const text = await res.text();
      let json: { task_id?: string; error?: { code?: string } } = {};
      try {
        json = JSON.parse(text);
      } catch {
        // not JSON
      }
      const answer: Answer = { status: res.status, taskId: json.task_id, code: json.error?.code };
      // 202 accepted, 402 out of money (the poor key), 409 a duplicate still in flight; anything
      // else means the harness or gengate is wrong.
      if (![202, 402, 409].includes(res.status))
        this.records.unexpected.push(`POST ${path} ${res.status} ${text.slice(0, 200)}`);
      return answer;
    } catch (error) {
      this.noteLost(error);
      return { status: 0 };
    }
  }

  /** Why a request got no answer (refused, reset, timed out), counted for the report. */
  private noteLost(error: unknown): void {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason = cause?.code ?? cause?.message ?? (error as Error).name ?? 'unknown';
    this.records.lost[reason] = (this.records.lost[reason] ?? 0) + 1;
  }

  private async oneChat(): Promise<void> {
    const mode = this.random.weighted({ full: 35, abort: 40, plain: 15, broken: 10 } as const);
    const key = this.keys[this.random.int(0, this.keys.length - 1)];
    const tokens = this.random.int(20, 120);
    const tail = mode === 'broken' ? ' [sim:fail=stream]' : '';
    const body = JSON.stringify({
      model: this.random.pick(['gpt-4o-mini', 'gpt-4.1-mini', 'gpt-4o']),
      stream: mode !== 'plain',
      messages: [{ role: 'user', content: `chaos chat [sim:tokens=${tokens}] [sim:pace=15]${tail}` }],
    });
    const record: ChatRequestRecord = { mode, status: 0, outcome: 'connection_lost' };
    this.records.chats.push(record);
    const abort = new AbortController();
    const timeout = setTimeout(() => abort.abort(), REQUEST_TIMEOUT_MS);
    try {
      const res = await fetch(`${(await this.api()).url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' },
        body,
        signal: abort.signal,
      });
      record.status = res.status;
      if (res.status !== 200) {
        await res.text();
        record.outcome = 'refused';
        if (res.status !== 402 && !(mode === 'broken' && res.status >= 500))
          this.records.unexpected.push(`POST /v1/chat/completions ${res.status} (${mode})`);
        return;
      }
      if (mode === 'plain') {
        await res.text();
        record.outcome = 'completed';
        return;
      }
      const reader = res.body!.getReader();
      const stopAfter = mode === 'abort' ? this.random.int(1, 10) : Number.POSITIVE_INFINITY;
      let chunks = 0;
      let text = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += Buffer.from(value).toString('utf8');
        if (++chunks >= stopAfter) {
          // The client goes away mid-stream.
          abort.abort();
          record.outcome = 'aborted';
          return;
        }
      }
      record.outcome = text.includes('[DONE]') ? 'completed' : 'failed';
    } catch (error) {
      if (record.status === 200 && mode === 'abort') record.outcome = 'aborted';
      else {
        this.noteLost(error);
        await sleep(200);
      }
    } finally {
      clearTimeout(timeout);
    }
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
