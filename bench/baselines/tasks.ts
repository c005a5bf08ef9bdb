// The GET /tasks/{id} baseline: a bare Fastify GET answering a completed task of the same shape as
// gengate's (task_id, status, result, error, created_at), built per request from the path.
import type { FastifyInstance } from 'fastify';

const CREATED_AT = new Date().toISOString();

export function registerBareTaskGet(app: FastifyInstance): void {
  app.get<{ Params: { id: string } }>('/tasks/:id', async (request) => ({
    task_id: request.params.id,
    status: 'completed',
    result: { image_url: `http://127.0.0.1/objects/${request.params.id}.png`, width: 512, height: 512 },
    error: null,
    created_at: CREATED_AT,
  }));
}
