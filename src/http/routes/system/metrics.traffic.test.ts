// /metrics after real traffic: tasks that complete and fail, chat completions (plain, streamed and
// failed), webhook deliveries, a task taken over from a dead worker. The text is parsed as the
// Prometheus text format and checked against prom-client's own JSON of the same registry; the money
// series are checked against the ledger, the token series against the usage rows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { releaseAbandonedChatHolds } from '../../../services/chat/abandoned-holds.js';
import type { TestKey } from '../../../testing/app.js';
import { ENGINES } from '../../../testing/db.js';
import {
  type Exposition,
  parseExposition,
  type Sample,
  sampleKey,
} from '../../../testing/prometheus-text.js';
import { createTaskTestApp, generate, type TaskTestApp, waitForFinal } from '../../../testing/tasks.js';
import { type Receiver, startReceiver } from '../../../testing/webhook-receiver.js';
import type { RunningWorker } from '../../../workers/loop.js';
import { startWebhookSender } from '../../../workers/webhook-sender.js';

describe.each(ENGINES)('/metrics after traffic on %s', (engine) => {
  let app: TaskTestApp;
  let sender: RunningWorker;
  let key: TestKey;
  let receiver: Receiver;
  let text: string;
  let scraped: Exposition;
  const taskIds: string[] = [];
  let slowTaskId: string;

  /** The one sample of `name` with exactly these labels; fails the test when absent. */
  function value(name: string, labels: Record<string, string> = {}): number {
    const wanted = sampleKey({ name, labels });
    const found = scraped.samples.find((s) => sampleKey({ name: s.name, labels: s.labels }) === wanted);
    if (!found) throw new Error(`no sample ${name}${JSON.stringify(labels)} in /metrics`);
    return found.value;
  }

  function samplesOf(name: string): Sample[] {
    return scraped.samples.filter((s) => s.name === name);
  }

  async function waitFor<T>(
    what: string,
    probe: () => Promise<T | undefined>,
    timeoutMs = 10_000,
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const got = await probe();
      if (got !== undefined) return got;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  beforeAll(async () => {
    // A long lease: on a loaded machine a live step's lease must not run out (a real takeover).
    app = await createTaskTestApp({ engine, config: { leaseMs: 30_000 } });
    sender = startWebhookSender(app.ctx, (message, error) => console.error(message, error));
    key = await app.newKey({ balanceRub: 1000 });
    receiver = await startReceiver(() => ({ status: 204 }));
    const webhook_url = `${receiver.url}/hooks/gengate`;

    // Two tasks that complete and one that fails, each with a webhook.
    for (const prompt of ['a red fox', 'a blue heron', 'a cat [sim:fail=reject]']) {
      const res = await generate(app, key, { model_name: 'flux-1-1-pro', prompt, webhook_url });
      expect(res.statusCode).toBe(202);
      taskIds.push(res.json().task_id);
    }
    for (const id of taskIds) await waitForFinal(app, key, id);
    await receiver.waitForRequests(3);

    // A task still at its provider, then left behind by a "dead" worker: its lease expired.
    const slow = await generate(app, key, { model_name: 'flux-1-1-pro', prompt: 'slow [sim:delay=600000]' });
    slowTaskId = slow.json().task_id;
    await waitFor('the slow task to be submitted and handed back', async () => {
      const row = await app.ctx.storage.tasks.byIdForWorker(slowTaskId);
      return row?.provider_job_id && row.lease_owner === null ? row : undefined;
    });
    const now = Date.now();
    const abandoned = await app.ctx.storage.db
      .updateTable('tasks')
      .set({ lease_owner: 'dead-worker', lease_expires_at: now - 1, run_at: now })
      .where('id', '=', slowTaskId)
      .where('lease_owner', 'is', null)
      .executeTakeFirst();
    expect(Number(abandoned.numUpdatedRows)).toBe(1);
    app.runner?.nudge();
    await waitFor('the takeover', async () => {
      const row = await app.ctx.storage.tasks.byIdForWorker(slowTaskId);
      return row?.lease_owner !== 'dead-worker' ? row : undefined;
    });

    // Chat: a plain completion, a stream, and an upstream failure.
    const chat = (content: string, stream = false) =>
      app.http.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: key.auth,
        payload: { model: 'gpt-4o-mini', stream, messages: [{ role: 'user', content }] },
      });
    expect((await chat('hello [sim:tokens=7]')).statusCode).toBe(200);
    expect((await chat('hello again [sim:tokens=5]', true)).statusCode).toBe(200);
    expect((await chat('no [sim:fail=overload]')).statusCode).toBe(502);

    // A chat hold whose request never ran (its process "died"), returned by the sweep.
    const authenticated = await app.ctx.auth.authenticate(key.auth.authorization);
    await app.ctx.chat.open(authenticated, {
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'lost' }],
    });
    expect(await releaseAbandonedChatHolds(app.ctx.storage, Date.now() + 1, 0, app.ctx.metrics)).toBe(1);

    // A read by id (its route pattern, never the id) and a request that matches no route.
    expect(
      (await app.http.inject({ method: 'GET', url: `/tasks/${taskIds[0]}`, headers: key.auth })).statusCode,
    ).toBe(200);
    expect((await app.http.inject({ method: 'GET', url: `/no/such/${taskIds[0]}` })).statusCode).toBe(404);

    // Streams settle after their response; wait until no chat hold is pending.
    await waitFor('chat settlements', async () => {
      const pending = await app.ctx.storage.db
        .selectFrom('usage_records')
        .select('id')
        .where('status', '=', 'pending')
        .execute();
      return pending.length === 0 ? true : undefined;
    });

    const res = await app.http.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    text = res.body;
    scraped = parseExposition(text);
  }, 60_000);

  afterAll(async () => {
    await sender?.stop();
    await receiver?.close();
    await app?.dispose();
  });

  it("parses as the text format and says the same as prom-client's JSON of the registry", async () => {
    const json = await app.ctx.metrics.registry.getMetricsAsJSON();
    const ours = json.filter((metric) => metric.name.startsWith('gengate_'));
    expect(ours.length).toBeGreaterThanOrEqual(20);
    for (const metric of ours) {
      const family = scraped.families.get(metric.name);
      expect(family, metric.name).toBeDefined();
      expect(family?.type).toBe(metric.type);
      expect(family?.help).toBe(metric.help);
      // The gauges read the database at most every few seconds, so both reads see one value. The
      // scrape itself is counted once answered: only the JSON, read after it, sees it.
      const fromJson = metric.values
        .filter((v) => v.labels.route !== '/metrics')
        .map((v) =>
          sampleKey({
            name: (v as { metricName?: string }).metricName ?? metric.name,
            labels: Object.fromEntries(Object.entries(v.labels).map(([k, l]) => [k, String(l)])),
            value: v.value,
          }),
        );
      const fromText = scraped.samples
        .filter((s) => s.family === metric.name && s.labels.route !== '/metrics')
        .map((s) => sampleKey(s));
      expect(fromText.sort(), metric.name).toEqual(fromJson.sort());
    }
  });

  it('counts HTTP requests by route pattern, method and status, with a duration histogram of each', () => {
    expect(value('gengate_http_requests_total', { route: '/generate', method: 'POST', status: '202' })).toBe(
      4,
    );
    expect(
      value('gengate_http_requests_total', { route: '/v1/chat/completions', method: 'POST', status: '200' }),
    ).toBe(2);
    expect(
      value('gengate_http_requests_total', { route: '/v1/chat/completions', method: 'POST', status: '502' }),
    ).toBe(1);
    expect(
      value('gengate_http_requests_total', { route: '/tasks/:task_id', method: 'GET', status: '200' }),
    ).toBeGreaterThanOrEqual(1);
    expect(value('gengate_http_requests_total', { route: 'unmatched', method: 'GET', status: '404' })).toBe(
      1,
    );
    // No label anywhere carries a raw URL or an id.
    for (const sample of scraped.samples)
      for (const label of Object.values(sample.labels)) {
        expect(label).not.toContain(taskIds[0]);
        expect(label).not.toMatch(/^\/no\/such/);
      }
    // Every requests series has its histogram, with the same count and cumulative buckets.
    for (const sample of samplesOf('gengate_http_requests_total')) {
      const labels = sample.labels;
      expect(value('gengate_http_request_duration_seconds_count', labels)).toBe(sample.value);
      const series = sampleKey({ name: '', labels: { ...labels, le: '' } });
      const buckets = samplesOf('gengate_http_request_duration_seconds_bucket').filter(
        (b) => sampleKey({ name: '', labels: { ...b.labels, le: '' } }) === series,
      );
      expect(buckets.length).toBeGreaterThan(5);
      const counts = buckets.map((b) => b.value);
      expect(counts).toEqual([...counts].sort((a, b) => a - b));
      expect(buckets.find((b) => b.labels.le === '+Inf')?.value).toBe(sample.value);
      expect(value('gengate_http_request_duration_seconds_sum', labels)).toBeGreaterThan(0);
    }
  });

  it('counts tasks by model and final state, with the time to result', () => {
    expect(value('gengate_tasks_created_total', { model: 'flux-1-1-pro' })).toBe(4);
    expect(value('gengate_tasks_finished_total', { model: 'flux-1-1-pro', status: 'completed' })).toBe(2);
    expect(value('gengate_tasks_finished_total', { model: 'flux-1-1-pro', status: 'failed' })).toBe(1);
    const completed = { model: 'flux-1-1-pro', status: 'completed' };
    expect(value('gengate_task_time_to_result_seconds_count', completed)).toBe(2);
    // The simulator takes SIM_LATENCY_MS (20 ms in tests) per task: the sum is small and positive.
    const sum = value('gengate_task_time_to_result_seconds_sum', completed);
    expect(sum).toBeGreaterThan(0.01);
    expect(sum).toBeLessThan(30);
  });

  it('counts upstream calls by provider and outcome', () => {
    const sim = { provider: 'simulator', model: 'flux-1-1-pro' };
    expect(value('gengate_provider_submits_total', { ...sim, outcome: 'submitted' })).toBe(4);
    expect(value('gengate_provider_outcomes_total', { ...sim, outcome: 'completed' })).toBe(2);
    expect(value('gengate_provider_outcomes_total', { ...sim, outcome: 'rejected' })).toBe(1);
    expect(value('gengate_provider_polls_total', { ...sim, outcome: 'succeeded' })).toBe(2);
    expect(value('gengate_provider_polls_total', { ...sim, outcome: 'failed:rejected' })).toBe(1);
    expect(
      value('gengate_provider_call_duration_seconds_count', { provider: 'simulator', call: 'submit' }),
    ).toBe(4);
    expect(
      value('gengate_provider_call_duration_seconds_count', { provider: 'simulator', call: 'poll' }),
    ).toBeGreaterThanOrEqual(3);
    expect(
      value('gengate_provider_time_to_result_seconds_count', {
        provider: 'simulator',
        model: 'flux-1-1-pro',
      }),
    ).toBe(2);
    const chat = { model: 'gpt-4o-mini', provider: 'simulator' };
    expect(value('gengate_chat_requests_total', { ...chat, status: 'completed' })).toBe(2);
    expect(value('gengate_chat_requests_total', { ...chat, status: 'failed' })).toBe(1);
    expect(value('gengate_chat_duration_seconds_count', { model: 'gpt-4o-mini', status: 'completed' })).toBe(
      2,
    );
  });

  it('counts webhook deliveries by outcome', () => {
    expect(value('gengate_webhook_deliveries_total', { outcome: 'delivered' })).toBe(3);
    expect(receiver.requests).toHaveLength(3);
  });

  it('counts money held, captured and refunded by model, equal to the ledger', async () => {
    const ledger = await app.ctx.storage.db
      .selectFrom('ledger_entries')
      .select(['kind', (eb) => eb.fn.sum<number>('amount').as('total')])
      .where('task_id', 'is not', null)
      .groupBy('kind')
      .execute();
    const total = (kind: string) => Number(ledger.find((row) => row.kind === kind)?.total ?? 0);
    const sum = (name: string) => samplesOf(name).reduce((acc, s) => acc + s.value, 0);
    expect(total('hold')).toBeGreaterThan(0);
    expect(sum('gengate_money_held_microrubles_total')).toBe(total('hold'));
    expect(sum('gengate_money_captured_microrubles_total')).toBe(total('capture'));
    expect(sum('gengate_money_refunded_microrubles_total')).toBe(total('release'));
    // The failed task's whole hold came back; chat holds above their cost came back as "completed".
    expect(
      value('gengate_money_refunded_microrubles_total', { model: 'flux-1-1-pro', outcome: 'failed' }),
    ).toBeGreaterThan(0);
    expect(value('gengate_money_captured_microrubles_total', { model: 'gpt-4o-mini' })).toBeGreaterThan(0);
    const abandoned = await app.ctx.storage.db
      .selectFrom('usage_records')
      .select('id')
      .where('status', '=', 'failed')
      .where('input_tokens', '=', 0)
      .execute();
    expect(abandoned.length).toBeGreaterThanOrEqual(1);
    expect(
      value('gengate_money_refunded_microrubles_total', { model: 'gpt-4o-mini', outcome: 'abandoned' }),
    ).toBeGreaterThan(0);
    // Still held: the slow task's hold, neither captured nor refunded.
    const slow = await app.ctx.storage.tasks.byIdForWorker(slowTaskId);
    expect(
      sum('gengate_money_held_microrubles_total') -
        sum('gengate_money_captured_microrubles_total') -
        sum('gengate_money_refunded_microrubles_total'),
    ).toBe(slow?.hold_amount);
  });

  it('counts chat tokens by model and direction, equal to the usage rows', async () => {
    const usage = await app.ctx.storage.db
      .selectFrom('usage_records')
      .select([
        (eb) => eb.fn.sum<number>('input_tokens').as('input'),
        (eb) => eb.fn.sum<number>('output_tokens').as('output'),
      ])
      .executeTakeFirstOrThrow();
    expect(value('gengate_chat_tokens_total', { model: 'gpt-4o-mini', direction: 'output' })).toBe(
      Number(usage.output),
    );
    expect(value('gengate_chat_tokens_total', { model: 'gpt-4o-mini', direction: 'input' })).toBe(
      Number(usage.input),
    );
    expect(Number(usage.output)).toBe(7 + 5);
  });

  it('shows the queue depth and the lease takeover', () => {
    // Only the slow task is left, at its provider; the one takeover is the "dead" worker's task.
    expect({
      processing: value('gengate_task_queue_depth', { status: 'processing' }),
      pending: value('gengate_task_queue_depth', { status: 'pending' }),
      expired: value('gengate_task_leases_expired'),
      takeovers: value('gengate_task_lease_takeovers_total'),
    }).toEqual({ processing: 1, pending: 0, expired: 0, takeovers: 1 });
  });
});
