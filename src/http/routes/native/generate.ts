// POST /generate: {"params": {...}} → 202 {task_id}. The guard has already answered 503/401/403/429;
// then, in the order of DESIGN.md §4: Idempotency-Key 400 → replay / 422 mismatch → body 400 →
// the create-task checks (model_name 422 → 404 → 403 → 422 no price → params 400/422) → 402 → 202.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../../context.js';
import { parseIdempotencyKey, requestFingerprint } from '../../../domain/idempotency/key.js';
import { type HttpOutcome, type IdempotentRequest, runIdempotent } from '../../../services/idempotency.js';
import { bodyObject, rejectUnknownFields } from '../../body.js';
import { GenerateHints } from '../../plugins/generate-hints.js';
import { captureRawJsonBodies, parsedJson, rawBytes } from '../../raw-json.js';

/** The Idempotency-Key of a request, bound to the calling API key and the exact request bytes. */
export function idempotentRequestOf(request: FastifyRequest, route: string): IdempotentRequest | undefined {
  const idemKey = parseIdempotencyKey(request.headers['idempotency-key']);
  if (idemKey === undefined) return undefined;
  return {
    keyId: request.apiKey.keyId,
    idemKey,
    fingerprint: requestFingerprint(request.method, route, rawBytes(request.body)),
  };
}

export function sendOutcome(reply: FastifyReply, outcome: HttpOutcome): FastifyReply {
  if (outcome.replayed) reply.header('Idempotent-Replayed', 'true');
  return reply.code(outcome.status).send(outcome.body);
}

export async function registerGenerateRoute(app: FastifyInstance, ctx: AppContext): Promise<void> {
  // Refusals name the common mistake they recognise (docs/openapi.md, "Hints").
  const hints = new GenerateHints({
    models: () => ctx.catalog.all(),
    balanceOf: (keyId) => ctx.storage.keys.balanceOf(keyId),
  });
  await app.register(async (scope) => {
    captureRawJsonBodies(scope);
    scope.post(
      '/generate',
      {
        config: { access: 'key' },
        onSend: hints.onSend,
        schema: {
          tags: ['tasks'],
          summary: 'Create a video or image generation task',
          description:
            'Body: {"params": {"model_name": "...", ...model parameters}}. Holds the cost on the key and answers 202 with the task id. Supports the Idempotency-Key header.',
          response: {
            202: {
              type: 'object',
              properties: { task_id: { type: 'string', format: 'uuid' } },
              required: ['task_id'],
            },
          },
        },
      },
      async (request, reply) => {
        const idempotent = idempotentRequestOf(request, '/generate');
        const outcome = await runIdempotent(ctx.idempotency, idempotent, () =>
          hints.around(request, async () => {
            const body = bodyObject(parsedJson(request.body));
            rejectUnknownFields(body, ['params']);
            const task = await ctx.tasks.create({
              key: request.apiKey,
              params: body.params,
              inTransaction: idempotent
                ? (tx, created) =>
                    ctx.idempotency.storeInTransaction(
                      tx,
                      idempotent,
                      { status: 202, body: { task_id: created.id } },
                      created.id,
                    )
                : undefined,
            });
            return { status: 202, body: { task_id: task.id } };
          }),
        );
        return sendOutcome(reply, outcome);
      },
    );
  });
}
