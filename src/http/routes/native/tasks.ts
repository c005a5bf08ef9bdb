// GET /tasks: the caller's account's tasks, newest first, a page at a time.
// GET /tasks/{task_id}: the caller's own task. Another account's task is the same 404 as an unknown id.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.js';
import { listTasks, TASK_PAGE_MAX, type TaskPageQuery } from '../../../services/tasks/list-tasks.js';
import { FinalTaskAnswers } from '../../presenters/final-task-answers.js';
import { presentTask, taskSchema } from '../../presenters/task.js';

const JSON_TYPE = 'application/json; charset=utf-8';

const taskListSchema = {
  type: 'object',
  properties: {
    object: { type: 'string', enum: ['list'] },
    data: { type: 'array', items: taskSchema },
    has_more: { type: 'boolean' },
    next_cursor: { type: ['string', 'null'], description: 'Pass as `after` for the next page' },
  },
  required: ['object', 'data', 'has_more', 'next_cursor'],
} as const;

export function registerTaskRoutes(app: FastifyInstance, ctx: AppContext): void {
  const finalAnswers = new FinalTaskAnswers();
  app.get<{ Querystring: TaskPageQuery }>(
    '/tasks',
    {
      config: { access: 'key' },
      schema: {
        tags: ['tasks'],
        summary: "The calling account's tasks, newest first (cursor list)",
        description:
          `limit 1-${TASK_PAGE_MAX} (20); after = a task id (the previous page's next_cursor); ` +
          'status = pending | processing | completed | failed; model = a model_name.',
        querystring: {
          type: 'object',
          properties: {
            limit: { type: 'string' },
            after: { type: 'string' },
            status: { type: 'string' },
            model: { type: 'string' },
          },
        },
        response: { 200: taskListSchema },
      },
    },
    async (request) => {
      const page = await listTasks(ctx.storage, request.apiKey.accountId, request.query);
      return {
        object: 'list',
        data: page.tasks.map(presentTask),
        has_more: page.hasMore,
        next_cursor: page.nextCursor,
      };
    },
  );

  app.get<{ Params: { task_id: string } }>(
    '/tasks/:task_id',
    {
      config: { access: 'key' },
      schema: {
        tags: ['tasks'],
        summary: 'A task of the calling account',
        params: { type: 'object', properties: { task_id: { type: 'string' } }, required: ['task_id'] },
        response: { 200: taskSchema },
      },
    },
    async (request, reply) => {
      const { accountId } = request.apiKey;
      reply.type(JSON_TYPE);
      const cached = finalAnswers.get(accountId, request.params.task_id.toLowerCase());
      if (cached !== undefined) return cached;
      const task = await ctx.tasks.getForOwner(accountId, request.params.task_id);
      const body = JSON.stringify(presentTask(task));
      finalAnswers.remember(task, body);
      return body;
    },
  );
}
