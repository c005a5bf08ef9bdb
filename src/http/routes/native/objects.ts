// GET /objects/{name}: result files (video_url, image_url) with their Content-Type and Range support.
// Access is 'system': no key and no maintenance gate. The URL itself is the capability (128 random
// bits), handed to webhook receivers and <video> players that cannot send a bearer token, and a
// finished result stays downloadable while the API is in maintenance.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.js';
import { AppError } from '../../../domain/errors.js';
import { sendStoredObject } from '../../object-response.js';

export function registerObjectRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Params: { name: string } }>(
    '/objects/:name',
    {
      config: { access: 'system' },
      schema: {
        tags: ['tasks'],
        summary: 'A generated file (the video_url / image_url of a task); supports Range',
        security: [],
        params: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      },
    },
    async (request, reply) => {
      const info = await ctx.objects.stat(request.params.name);
      if (!info) throw new AppError('not_found', 'Object not found');
      // Names are never reused, so the bytes behind a URL never change.
      reply.header('Cache-Control', 'public, max-age=31536000, immutable');
      reply.header('ETag', `"${info.name}"`);
      return sendStoredObject(
        ctx.objects,
        info,
        request,
        reply,
        new AppError('not_found', 'Object not found'),
      );
    },
  );
}
