// GET /tasks/{task_id}: the caller's own task. Another account's task is the same 404 as an unknown id.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.js';
import { presentTask, taskSchema } from '../../presenters/task.js';

export function registerTaskRoutes(app: FastifyInstance, ctx: AppContext): void {
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
    async (request) =>
      presentTask(await ctx.tasks.getForOwner(request.apiKey.accountId, request.params.task_id)),
  );
}
