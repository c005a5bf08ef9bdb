// The runner's provider rules against scripted adapters, whatever the upstream: route fallback, a
// submit whose answer was lost (found by reconcile, or refunded at the deadline, never sent twice),
// the final poll at the deadline, the upstream cancel, and the provider metrics.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TASK_FAILURE } from '../domain/tasks/states.js';
import { NotSentError } from '../providers/http/upstream-http.js';
import type {
  PollOutcome,
  ProviderTask,
  ReconcileOutcome,
  SubmitOutcome,
  TaskProvider,
} from '../providers/task-provider.js';
import type { TestKey } from '../testing/app.js';
import { FAKE_PNG } from '../testing/fakes/fake-server.js';
import {
  balanceOf,
  createTaskTestApp,
  expectLedgerClean,
  generate,
  type TaskTestApp,
  waitForFinal,
} from '../testing/tasks.js';

/** Behaviour per prompt word, so each test scripts its own task. */
class Scripted implements TaskProvider {
  readonly type = 'scripted';
  submits: string[] = [];
  cancels: string[] = [];
  polls = 0;
  jobs = new Map<string, string>();
  reconcile?: (task: ProviderTask) => Promise<ReconcileOutcome>;

  constructor(
    readonly name: string,
    private readonly script: (prompt: string, task: ProviderTask) => SubmitOutcome | 'not_sent',
    private readonly finishedWhen: (prompt: string) => boolean = () => true,
    withReconcile = false,
  ) {
    if (withReconcile)
      this.reconcile = async (task) => {
        const jobId = this.jobs.get(task.id);
        return jobId ? { status: 'found', jobId } : { status: 'not_found' };
      };
  }

  async submit(task: ProviderTask): Promise<SubmitOutcome> {
    this.submits.push(task.id);
    const outcome = this.script(String(task.params.prompt), task);
    if (outcome === 'not_sent') throw new NotSentError('connect ECONNREFUSED');
    // A lost answer still created the job upstream.
    if (outcome.status === 'uncertain' || outcome.status === 'submitted')
      this.jobs.set(task.id, `${this.name}-${task.id}`);
    return outcome;
  }

  async poll(_jobId: string, task: ProviderTask): Promise<PollOutcome> {
    this.polls++;
    // A long hint: the runner clamps the next poll to the deadline.
    if (!this.finishedWhen(String(task.params.prompt))) return { status: 'running', retryAfterMs: 10_000 };
    return {
      status: 'succeeded',
      outputs: [{ source: { kind: 'bytes', data: FAKE_PNG }, contentType: 'image/png' }],
    };
  }

  async cancel(jobId: string): Promise<void> {
    this.cancels.push(jobId);
  }
}

const PRICE = 4_500_000; // flux-1-1-pro, per shot
let app: TaskTestApp;
let key: TestKey;
let dir: string;
let first: Scripted;
let second: Scripted;
let finishedAt = Number.POSITIVE_INFINITY;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gengate-routes-'));
  const providersFile = join(dir, 'providers.json');
  writeFileSync(
    providersFile,
    JSON.stringify({
      providers: {
        a: { type: 'fal', base_url: 'http://127.0.0.1:9', api_key: 'k' },
        b: { type: 'replicate', base_url: 'http://127.0.0.1:9', api_key: 'k' },
      },
      routes: {
        'flux-1-1-pro': [
          { provider: 'a', model: 'a-flux' },
          { provider: 'b', model: 'b-flux' },
        ],
        'gpt-image-1': { provider: 'a', model: 'a-gpt' },
      },
    }),
  );
  app = await createTaskTestApp({ config: { providersFile, providerTimeoutMs: 1_500, requeueDelayMs: 30 } });
  first = new Scripted(
    'a',
    (prompt) => {
      if (prompt.includes('a-busy')) return { status: 'busy' };
      if (prompt.includes('a-overload'))
        return { status: 'failed', failure: { kind: 'overload', detail: 'HTTP 503' } };
      if (prompt.includes('a-down')) return 'not_sent';
      if (prompt.includes('a-rejects')) return { status: 'failed', failure: { kind: 'rejected' } };
      if (prompt.includes('lost')) return { status: 'uncertain', detail: 'socket hang up' };
      return { status: 'submitted', jobId: 'placeholder', retryAfterMs: 10 };
    },
    (prompt) => !prompt.includes('forever') && (!prompt.includes('late') || Date.now() >= finishedAt),
  );
  second = new Scripted('b', (prompt, task) =>
    // Busy until the task has been re-queued once.
    prompt.includes('b-busy') && task.requeues < 1
      ? { status: 'busy' }
      : { status: 'submitted', jobId: 'placeholder', retryAfterMs: 10 },
  );
  app.ctx.taskProviders.registerType('fal', () => first);
  app.ctx.taskProviders.registerType('replicate', () => second);
  // Polling GET /tasks every 15 ms would otherwise meet the key's default rate limit.
  key = await app.newKey({ balanceRub: 1000, restrictions: { rate_limit_per_min: 1_000_000 } });
});

afterAll(async () => {
  await expectLedgerClean(app);
  await app.dispose();
  rmSync(dir, { recursive: true, force: true });
});

async function run(model: string, prompt: string) {
  const res = await generate(app, key, { model_name: model, prompt });
  expect(res.statusCode).toBe(202);
  const taskId = res.json().task_id as string;
  const task = await waitForFinal(app, key, taskId, 15_000);
  return { taskId, task, row: await app.ctx.storage.tasks.byIdForWorker(taskId) };
}

describe('routes, lost submits and the deadline', () => {
  it.each([
    ['busy', 'a-busy'],
    ['overloaded', 'a-overload'],
    ['unreachable', 'a-down'],
  ])('a first route that is %s hands the task to the second, which completes it', async (_what, word) => {
    const before = await balanceOf(app, key);
    const { taskId, task, row } = await run('flux-1-1-pro', word);
    expect(task.status).toBe('completed');
    expect(row).toMatchObject({ provider: 'b', attempts: 1, requeues: 0 });
    expect(first.submits).toContain(taskId);
    expect(second.submits.filter((id) => id === taskId)).toHaveLength(1);
    expect(await balanceOf(app, key)).toEqual({ balance: before.balance - PRICE, held: 0 });
  });

  it('a refusal that is not about capacity does not move to the next route', async () => {
    const before = await balanceOf(app, key);
    const { taskId, task } = await run('flux-1-1-pro', 'a-rejects');
    expect(task).toMatchObject({ status: 'failed', error: TASK_FAILURE.rejected });
    expect(second.submits).not.toContain(taskId);
    expect(await balanceOf(app, key)).toEqual(before);
  });

  it('every route busy re-queues the task, which starts again from the first route', async () => {
    const { taskId, task, row } = await run('flux-1-1-pro', 'a-busy b-busy');
    expect(task).toMatchObject({ status: 'completed', error: null });
    expect(row).toMatchObject({ provider: 'b', requeues: 1 });
    // Before the re-queue a, then b; after it a again, then b, which took the job.
    expect(first.submits.filter((id) => id === taskId)).toHaveLength(2);
    expect(second.submits.filter((id) => id === taskId)).toHaveLength(2);
  });

  it('a lost submit is never sent again: without a lookup the task is refunded at the deadline', async () => {
    const before = await balanceOf(app, key);
    const { taskId, task, row } = await run('gpt-image-1', 'lost');
    expect(task).toMatchObject({ status: 'failed', error: TASK_FAILURE.timeout });
    expect(first.submits.filter((id) => id === taskId)).toHaveLength(1);
    expect(row).toMatchObject({ provider: 'a', provider_job_id: null });
    expect(await balanceOf(app, key)).toEqual(before);
  });

  it('a lost submit found by reconcile is polled and completes, with one submit', async () => {
    const finder = new Scripted(
      'a',
      () => ({ status: 'uncertain', detail: 'reset' }),
      () => true,
      true,
    );
    app.ctx.taskProviders.registerType('fal', () => finder);
    try {
      const { taskId, task, row } = await run('gpt-image-1', 'lost but findable');
      expect(task.status).toBe('completed');
      expect(finder.submits).toEqual([taskId]);
      expect(row).toMatchObject({ provider_job_id: `a-${taskId}`, attempts: 1 });
    } finally {
      app.ctx.taskProviders.registerType('fal', () => first);
    }
  });

  it('at the deadline a job that has finished completes instead of timing out', async () => {
    // The job finishes at 1.45 s; the poll before that is told to come back in 10 s, which the
    // runner clamps to the deadline (1.5 s): only the final poll can see the result.
    finishedAt = Date.now() + 1_450;
    const { task } = await run('gpt-image-1', 'late');
    expect(task.status).toBe('completed');
    finishedAt = Number.POSITIVE_INFINITY;
  });

  it('a job still running at the deadline is cancelled upstream, then the task fails and is refunded', async () => {
    const before = await balanceOf(app, key);
    const { taskId, task, row } = await run('gpt-image-1', 'forever');
    expect(task).toMatchObject({ status: 'failed', error: TASK_FAILURE.timeout });
    expect(first.cancels).toEqual([row?.provider_job_id]);
    expect(row?.provider_job_id).toBe('placeholder');
    expect(first.submits.filter((id) => id === taskId)).toHaveLength(1);
    expect(await balanceOf(app, key)).toEqual(before);
  });

  it('counts submits and outcomes per provider and model in /metrics', async () => {
    const metrics = (await app.http.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toContain(
      'gengate_provider_submits_total{provider="a",model="flux-1-1-pro",outcome="busy"}',
    );
    expect(metrics).toContain(
      'gengate_provider_submits_total{provider="a",model="flux-1-1-pro",outcome="failed:overload"} 1',
    );
    expect(metrics).toContain(
      'gengate_provider_submits_total{provider="a",model="flux-1-1-pro",outcome="not_sent"} 1',
    );
    expect(metrics).toContain(
      'gengate_provider_submits_total{provider="a",model="gpt-image-1",outcome="uncertain"}',
    );
    expect(metrics).toContain(
      'gengate_provider_outcomes_total{provider="b",model="flux-1-1-pro",outcome="completed"}',
    );
    expect(metrics).toContain(
      'gengate_provider_outcomes_total{provider="a",model="gpt-image-1",outcome="timeout"}',
    );
    expect(metrics).toContain(
      'gengate_provider_outcomes_total{provider="a",model="flux-1-1-pro",outcome="rejected"} 1',
    );
    expect(metrics).toMatch(
      /gengate_provider_time_to_result_seconds_count\{provider="b",model="flux-1-1-pro"\} [1-9]/,
    );
  });
});
