// GET /tasks/{id}: final answers are reused (presenters/final-task-answers.ts); these tests pin what
// must still hold: the owner scope, pending tasks read fresh, and the same bytes either way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestKey } from '../../../testing/app.js';
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

describe("GET /tasks: the account's task list", () => {
  let app: TaskTestApp;
  let owner: TestKey;
  let sameAccount: TestKey;
  let other: TestKey;
  const ids: string[] = []; // oldest first
  beforeAll(async () => {
    app = await createTaskTestApp({ runner: false });
    owner = await app.newKey({ balanceRub: 100 });
    sameAccount = await app.newKey({ balanceRub: 100, messagingId: owner.messagingId });
    other = await app.newKey({ balanceRub: 100 });
    const make = async (key: TestKey, model: string) => {
      const res = await generate(app, key, { model_name: model, prompt: 'a lighthouse' });
      expect(res.statusCode).toBe(202);
      return res.json().task_id as string;
    };
    ids.push(await make(owner, 'seedream-4'));
    ids.push(await make(sameAccount, 'seedance-2')); // another key of the same account is listed too
    ids.push(await make(owner, 'seedream-4'));
    await make(other, 'seedream-4');
    // The first task fails behind the API's back (as a worker would), with its finish time.
    await app.ctx.storage.db
      .updateTable('tasks')
      .set({ status: 'failed', error: 'Provider billing error', cost: 0, finished_at: Date.now() })
      .where('id', '=', ids[0])
      .execute();
  });
  afterAll(async () => {
    await app.dispose();
  });

  const list = (key: TestKey, query = '') =>
    app.http.inject({ method: 'GET', url: `/tasks${query}`, headers: key.auth });

  it("lists the account's tasks newest first, as task objects with model_name, cost and finished_at", async () => {
    const res = await list(owner);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
    expect(body.data.map((t: { task_id: string }) => t.task_id)).toEqual([...ids].reverse());
    expect(body.data[2]).toMatchObject({
      task_id: ids[0],
      status: 'failed',
      model_name: 'seedream-4',
      cost: 0,
      error: 'Provider billing error',
    });
    expect(body.data[2].finished_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(body.data[0]).toMatchObject({
      status: 'pending',
      model_name: 'seedream-4',
      cost: null,
      finished_at: null,
    });
    // The same object as GET /tasks/{id}.
    expect(body.data[1]).toEqual(await getTask(app, owner, ids[1]));
    // Another account never sees them.
    const theirs = (await list(other)).json();
    expect(theirs.data).toHaveLength(1);
    expect(ids).not.toContain(theirs.data[0].task_id);
  });

  it('pages with limit and next_cursor (as after), and filters by status and model', async () => {
    const first = (await list(owner, '?limit=2')).json();
    expect(first.data.map((t: { task_id: string }) => t.task_id)).toEqual([ids[2], ids[1]]);
    expect(first).toMatchObject({ has_more: true, next_cursor: ids[1] });
    const second = (await list(owner, `?limit=2&after=${first.next_cursor.toUpperCase()}`)).json();
    expect(second.data.map((t: { task_id: string }) => t.task_id)).toEqual([ids[0]]);
    expect(second).toMatchObject({ has_more: false, next_cursor: null });

    const pending = (await list(owner, '?status=pending')).json();
    expect(pending.data.map((t: { task_id: string }) => t.task_id)).toEqual([ids[2], ids[1]]);
    const seedance = (await list(owner, '?model=seedance-2')).json();
    expect(seedance.data.map((t: { task_id: string }) => t.task_id)).toEqual([ids[1]]);
    expect((await list(owner, '?model=seedream-4&status=failed')).json().data).toHaveLength(1);
    expect((await list(owner, '?model=no-such-model')).json()).toMatchObject({ data: [], has_more: false });
  });

  it("refuses a bad limit, status or cursor with the parameter named; another account's id is no cursor", async () => {
    for (const [query, param] of [
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
      ['?limit=ten', 'limit'],
      ['?status=done', 'status'],
      ['?after=nope', 'after'],
      [`?after=${ids[0]}`, 'after'],
    ] as const) {
      const res = await list(query.includes(ids[0]) ? other : owner, query);
      expect(res.statusCode, query).toBe(422);
      expect(res.json().error).toMatchObject({ code: 'invalid_parameter', param });
    }
    expect((await app.http.inject({ method: 'GET', url: '/tasks' })).statusCode).toBe(401);
  });
});
