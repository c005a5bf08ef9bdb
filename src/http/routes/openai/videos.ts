// OpenAI's videos API over video tasks: POST /v1/videos creates a task (held as on POST /generate)
// and answers the video object (status queued); GET /v1/videos/{id} is the object, owner-scoped;
// GET /v1/videos/{id}/content streams the MP4; GET /v1/videos is the cursor list of the caller's
// videos and DELETE /v1/videos/{id} drops a final video's media. The body is JSON or
// multipart/form-data of text fields: the official openai SDK always sends videos.create as a form.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.js';
import { AppError } from '../../../domain/errors.js';
import { coerceFormValues } from '../../../domain/openai/form-values.js';
import {
  DEFAULT_VIDEO_MODEL,
  inOpenAiTerms,
  mapVideoRequest,
  requestedModel,
} from '../../../domain/openai/mapping.js';
import { runIdempotent } from '../../../services/idempotency.js';
import { deleteVideo } from '../../../services/openai/delete-video.js';
import { resolveOpenAiModel } from '../../../services/openai/model.js';
import { objectNameOf } from '../../../services/openai/result-object.js';
import { listVideos, ownVideo, type VideoPageQuery } from '../../../services/openai/videos.js';
import { bodyObject } from '../../body.js';
import { captureFormBodies, isFormBody } from '../../form-body.js';
import { sendStoredObject } from '../../object-response.js';
import { openAiVideoSchema, presentOpenAiVideo } from '../../presenters/openai-video.js';
import { captureRawJsonBodies, parsedJson } from '../../raw-json.js';
import { idempotentRequestOf, sendOutcome } from '../native/generate.js';

const ROUTE = '/v1/videos';

const videoIdParams = {
  type: 'object',
  properties: { video_id: { type: 'string' } },
  required: ['video_id'],
} as const;

const videoListSchema = {
  type: 'object',
  properties: {
    object: { type: 'string', enum: ['list'] },
    data: { type: 'array', items: openAiVideoSchema },
    first_id: { type: ['string', 'null'] },
    last_id: { type: ['string', 'null'] },
    has_more: { type: 'boolean' },
  },
  required: ['object', 'data', 'first_id', 'last_id', 'has_more'],
} as const;

export async function registerVideoRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  await app.register(async (scope) => {
    captureRawJsonBodies(scope);
    captureFormBodies(scope);
    scope.post(
      ROUTE,
      {
        config: { access: 'key' },
        schema: {
          tags: ['openai'],
          summary: 'Create a video (OpenAI-compatible); an asynchronous task',
          description:
            'JSON or multipart/form-data text fields: {model?: "sora-2", prompt, seconds?, size?, input_reference?: {image_url}, extra_body?: {native params}}. ' +
            'Holds the cost as POST /generate does and answers the video object with status queued. File uploads are refused (422). ' +
            'Supports the Idempotency-Key header.',
          response: { 200: openAiVideoSchema },
        },
      },
      async (request, reply) => {
        const idempotent = idempotentRequestOf(request, ROUTE);
        const outcome = await runIdempotent(ctx.idempotency, idempotent, async () => {
          const fields = bodyObject(parsedJson(request.body));
          const key = request.apiKey;
          const model = await resolveOpenAiModel(
            ctx.catalog,
            key,
            requestedModel(fields, DEFAULT_VIDEO_MODEL),
            'video',
          );
          const mapped = mapVideoRequest(fields, model.id);
          const params = isFormBody(request.body)
            ? coerceFormValues(mapped.params, model.paramsSchema)
            : mapped.params;
          try {
            const task = await ctx.tasks.create({
              key,
              params,
              inTransaction: idempotent
                ? (tx, created) =>
                    ctx.idempotency.storeInTransaction(
                      tx,
                      idempotent,
                      { status: 200, body: presentOpenAiVideo(created) },
                      created.id,
                    )
                : undefined,
            });
            return { status: 200, body: presentOpenAiVideo(task) };
          } catch (error) {
            throw error instanceof AppError ? inOpenAiTerms(error, mapped.origins) : error;
          }
        });
        return sendOutcome(reply, outcome);
      },
    );
  });

  app.get<{ Querystring: VideoPageQuery }>(
    ROUTE,
    {
      config: { access: 'key' },
      schema: {
        tags: ['openai'],
        summary: "The calling account's videos, newest first (OpenAI cursor list)",
        description:
          'Video tasks made through POST /v1/videos or POST /generate, deleted ones left out. ' +
          'limit 1-100 (20), after = the id of the last video of the previous page, order desc (default) or asc.',
        querystring: {
          type: 'object',
          properties: { limit: { type: 'string' }, after: { type: 'string' }, order: { type: 'string' } },
        },
        response: { 200: videoListSchema },
      },
    },
    async (request) => {
      const page = await listVideos(ctx.storage, request.apiKey.accountId, request.query);
      const data = page.videos.map(presentOpenAiVideo);
      return {
        object: 'list',
        data,
        first_id: data[0]?.id ?? null,
        last_id: data.at(-1)?.id ?? null,
        has_more: page.hasMore,
      };
    },
  );

  app.delete<{ Params: { video_id: string } }>(
    `${ROUTE}/:video_id`,
    {
      config: { access: 'key' },
      schema: {
        tags: ['openai'],
        summary: 'Delete the stored MP4 of a completed or failed video; the charge stays',
        description:
          'A queued or in-progress video is 409 video_not_ready. Afterwards the video is 404 here and ' +
          'left out of the list; GET /tasks/{id} keeps the task (its video_url answers 404) with result.deleted_at.',
        params: videoIdParams,
        response: {
          200: {
            type: 'object',
            properties: {
              id: { type: 'string' },
              object: { type: 'string', enum: ['video.deleted'] },
              deleted: { type: 'boolean' },
            },
            required: ['id', 'object', 'deleted'],
          },
        },
      },
    },
    async (request) => {
      const id = await deleteVideo(ctx, request.apiKey.accountId, request.params.video_id);
      return { id, object: 'video.deleted', deleted: true };
    },
  );

  app.get<{ Params: { video_id: string } }>(
    `${ROUTE}/:video_id`,
    {
      config: { access: 'key' },
      schema: {
        tags: ['openai'],
        summary: 'A video of the calling account (OpenAI video object)',
        params: videoIdParams,
        response: { 200: openAiVideoSchema },
      },
    },
    async (request) =>
      presentOpenAiVideo(await ownVideo(ctx.storage, request.apiKey.accountId, request.params.video_id)),
  );

  app.get<{ Params: { video_id: string }; Querystring: { variant?: string } }>(
    `${ROUTE}/:video_id/content`,
    {
      config: { access: 'key' },
      schema: {
        tags: ['openai'],
        summary: 'The MP4 of a completed video (variant=video only); supports Range',
        params: videoIdParams,
        querystring: { type: 'object', properties: { variant: { type: 'string' } } },
      },
    },
    async (request, reply) => {
      const variant = request.query.variant ?? 'video';
      const task = await ownVideo(ctx.storage, request.apiKey.accountId, request.params.video_id);
      if (variant !== 'video')
        throw new AppError(
          'not_found',
          `Variant ${variant} is not available: only variant=video is`,
          'variant',
        );
      if (task.status !== 'completed') {
        const failed = task.status === 'failed';
        throw new AppError(
          'video_not_ready',
          failed
            ? `The video failed (${task.error ?? 'no reason given'}): there is no content`
            : `The video is ${presentOpenAiVideo(task).status}: download it once its status is completed`,
          null,
          // Retrying a failed video's download cannot help; a queued one's may (the SDK retries 409).
          failed ? { headers: { 'x-should-retry': 'false' } } : {},
        );
      }
      const result = JSON.parse(task.result ?? '{}') as { video_url?: unknown };
      const name = typeof result.video_url === 'string' ? objectNameOf(result.video_url) : undefined;
      const info = name === undefined ? undefined : await ctx.objects.stat(name);
      if (!info) throw new AppError('internal_error', 'The video file of this task is missing');

      return sendStoredObject(
        ctx.objects,
        info,
        request,
        reply,
        new AppError('internal_error', 'The video file of this task is missing'),
      );
    },
  );
}
