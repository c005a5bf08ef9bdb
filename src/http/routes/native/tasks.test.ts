// GET /tasks/{id}: final answers are reused (presenters/final-task-answers.ts); these tests pin what
// must still hold: the owner scope, pending tasks read fresh, and the same bytes either way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTaskTestApp,
  generate,
  getTask,
  type TaskTestApp,
  waitForFinal,
} from '../../../testing/tasks.js';
import { FinalTaskAnswers } from '../../presenters/final-task-answers.js';

describe('GET /tasks/{id} and the final-answer cache', () => {
  let app: TaskTestApp;
  beforeAll(async () => {
    app = await createTaskTestApp({ runner: false });
  });
  afterAll(async () => {
    await app.dispose();
  });

  it('reads a pending task fresh each time, then serves the final answer unchanged', async () => {
    const owner = await app.newKey({ balanceRub: 100 });
    const created = await generate(app, owner, { model_name: 'seedream-4', prompt: 'a lighthouse' });
    expect(created.statusCode).toBe(202);
    const taskId: string = created.json().task_id;
    expect((await getTask(app, owner, taskId)).status).toBe('pending');
    // The task becomes final behind the API's back (as a worker in another process would do it).
    await app.ctx.storage.db
      .updateTable('tasks')
      .set({ status: 'failed', error: 'Provider billing error', finished_at: Date.now() })
      .where('id', '=', taskId)
      .execute();
    const first = await app.http.inject({ method: 'GET', url: `/tasks/${taskId}`, headers: owner.auth });
    expect(first.json()).toMatchObject({
      task_id: taskId,
      status: 'failed',
      error: 'Provider billing error',
    });
    const again = await app.http.inject({
      method: 'GET',
      url: `/tasks/${taskId.toUpperCase()}`,
      headers: owner.auth,
    });
    expect(again.statusCode).toBe(200);
    expect(again.body).toBe(first.body);
    expect(again.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('never answers another account from the cache: 404 like an unknown id', async () => {
    // With the task runner, so that the task really completes.
    const runnerApp = await createTaskTestApp();
    try {
      const ownerHere = await runnerApp.newKey({ balanceRub: 100 });
      const otherHere = await runnerApp.newKey({ balanceRub: 100 });
      const created = await generate(runnerApp, ownerHere, { model_name: 'seedream-4', prompt: 'a cat' });
      const taskId: string = created.json().task_id;
      expect((await waitForFinal(runnerApp, ownerHere, taskId)).status).toBe('completed');
      // The owner's answer is now cached; the other account still gets the 404.
      await getTask(runnerApp, ownerHere, taskId);
      const foreign = await runnerApp.http.inject({
        method: 'GET',
        url: `/tasks/${taskId}`,
        headers: otherHere.auth,
      });
      expect(foreign.statusCode).toBe(404);
      expect(foreign.json().error.code).toBe('task_not_found');
    } finally {
      await runnerApp.dispose();
    }
  });
});

describe('FinalTaskAnswers', () => {
  it('keeps final answers only, per owner, and forgets the oldest beyond its bound', () => {
    const answers = new FinalTaskAnswers(2);
    answers.remember({ id: 'p', account_id: 1, status: 'processing' }, '{"p":1}');
    expect(answers.get(1, 'p')).toBeUndefined();
    answers.remember({ id: 'a', account_id: 1, status: 'completed' }, '{"a":1}');
    answers.remember({ id: 'b', account_id: 1, status: 'failed' }, '{"b":1}');
    expect(answers.get(1, 'a')).toBe('{"a":1}');
    expect(answers.get(2, 'a')).toBeUndefined();
    answers.remember({ id: 'c', account_id: 1, status: 'completed' }, '{"c":1}');
    expect(answers.get(1, 'a')).toBeUndefined();
    expect([answers.get(1, 'b'), answers.get(1, 'c')]).toEqual(['{"b":1}', '{"c":1}']);
  });
});
