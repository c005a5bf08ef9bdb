// The POST /generate baseline: Fastify parses the same JSON body gengate receives, the handler
// checks the one field the endpoint itself requires and answers 202 with a fresh task id.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

export function registerBareGenerate(app: FastifyInstance): void {
  app.post('/generate', async (request, reply) => {
    const params = (request.body as { params?: { model_name?: unknown } } | null)?.params;
    if (typeof params?.model_name !== 'string')
      return reply.code(422).send({ error: 'params.model_name is required' });
    return reply.code(202).send({ task_id: randomUUID() });
  });
}
