// GET /tasks/{task_id}: the caller's own task. Another account's task is the same 404 as an unknown id.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.js';
import { FinalTaskAnswers } from '../../presenters/final-task-answers.js';
import { presentTask, taskSchema } from '../../presenters/task.js';

const JSON_TYPE = 'application/json; charset=utf-8';

export function registerTaskRoutes(app: FastifyInstance, ctx: AppContext): void {
  const finalAnswers = new FinalTaskAnswers();
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
