// The console's task page shows every state change with its time: a task the provider turned away
// twice ("Concurrency limit exceeded") went pending → processing → pending → processing → pending
// → processing → completed, and the page lists those steps in that order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestKey } from '../testing/app.js';
import { consoleSignIn } from '../testing/console.js';
import { createTaskTestApp, generate, type TaskTestApp, waitForFinal } from '../testing/tasks.js';

describe('the task timeline', () => {
  let app: TaskTestApp;
  let key: TestKey;
  beforeAll(async () => {
    app = await createTaskTestApp({ config: { requeueDelayMs: 30 } });
    key = await app.newKey({ balanceRub: 100 });
  });
  afterAll(() => app.dispose());

  it('lists each stretch in processing and each return to the queue, in order', async () => {
    const res = await generate(app, key, {
      model_name: 'flux-1-1-pro',
      prompt: 'busy [sim:busy=2] [sim:delay=30]',
    });
    const id = res.json().task_id as string;
    const final = await waitForFinal(app, key, id);
    expect(final.status).toBe('completed');
    const cookie = await consoleSignIn(app);
    const page = await app.http.inject({ method: 'GET', url: `/console/tasks/${id}`, headers: { cookie } });
    expect(page.statusCode).toBe(200);
    const timeline = /<ol class="timeline">(.*?)<\/ol>/s.exec(page.body)?.[1] ?? '';
    const steps = [...timeline.matchAll(/<time datetime="([^"]+)">[^<]*<\/time> · ([^<]+)<\/li>/g)].map(
      (m) => ({
        at: Date.parse(m[1]),
        what: m[2].replace(/ [\d.]+ ₽| \(msg_[^)]+\)/g, '').trim(),
      }),
    );
    const states = steps
      .map((s) => s.what)
      .filter((w) => /^(created|processing|pending again|completed)/.test(w))
      .map((w) => w.split(' ')[0]);
    expect(states).toEqual([
      'created',
      'processing',
      'pending',
      'processing',
      'pending',
      'processing',
      'completed',
    ]);
    // Times never go backwards.
    for (let i = 1; i < steps.length; i++) expect(steps[i].at).toBeGreaterThanOrEqual(steps[i - 1].at);
  });
});
