// POST /v1/images/generations: OpenAI's synchronous image API over image tasks. The guard has
// answered 503/401/403/429; then Idempotency-Key 400 → replay / 422 mismatch → body 400 → model
// 404/403/422 → mapping and params 400/422 → 402 → wait for the image (SyncImageService) → 200.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.js';
import {
  DEFAULT_IMAGE_MODEL,
  mapImageRequest,
  nativeParamNames,
  requestedModel,
} from '../../../domain/openai/mapping.js';
import { resolveOpenAiModel } from '../../../services/openai/model.js';
import { bodyObject } from '../../body.js';
import { captureRawJsonBodies, parsedJson } from '../../raw-json.js';
import { idempotentRequestOf, sendOutcome } from '../native/generate.js';

const ROUTE = '/v1/images/generations';

export async function registerImagesRoute(app: FastifyInstance, ctx: AppContext): Promise<void> {
  await app.register(async (scope) => {
    captureRawJsonBodies(scope);
    scope.post(
      ROUTE,
      {
        config: { access: 'key' },
        schema: {
          tags: ['openai'],
          summary: 'Generate an image (OpenAI-compatible); waits for it up to SYNC_IMAGE_WAIT_MS',
          description:
            'Body: {model, prompt, size?, n?: 1, response_format?: "url" | "b64_json", extra_body?: {native params}}. ' +
            'Creates an image task (held and charged as on POST /generate) and answers {created, data: [{url}]} when it is done, ' +
            'or 504 upstream_timeout with error.task_id to poll GET /tasks/{task_id}. Supports the Idempotency-Key header.',
        },
      },
      async (request, reply) => {
        const body = () => bodyObject(parsedJson(request.body));
        const outcome = await ctx.syncImages.generate({
          key: request.apiKey,
          idempotent: idempotentRequestOf(request, ROUTE),
          prepare: async () => {
            const fields = body();
            const model = await resolveOpenAiModel(
              ctx.catalog,
              request.apiKey,
              requestedModel(fields, DEFAULT_IMAGE_MODEL),
              'image',
            );
            return mapImageRequest(fields, model.id, nativeParamNames(model.paramsSchema));
          },
          // The same bytes created the claimed task, so the body parses.
          responseFormat: () => (body().response_format === 'b64_json' ? 'b64_json' : 'url'),
        });
        return sendOutcome(reply, outcome);
      },
    );
  });
}
