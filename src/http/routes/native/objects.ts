// GET /objects/{name}: result files (video_url, image_url) with their Content-Type and Range support.
// Access is 'system': no key and no maintenance gate. The URL itself is the capability (128 random
// bits), handed to webhook receivers and <video> players that cannot send a bearer token, and a
// finished result stays downloadable while the API is in maintenance.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.js';
import { AppError } from '../../../domain/errors.js';
import { parseRange } from '../../range.js';

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
      const range = parseRange(request.headers.range, info.size);
      reply.header('Accept-Ranges', 'bytes');
      // Names are never reused, so the bytes behind a URL never change.
      reply.header('Cache-Control', 'public, max-age=31536000, immutable');
      reply.header('ETag', `"${info.name}"`);
      reply.type(info.contentType);
      if (range.kind === 'unsatisfiable') {
        throw new AppError('range_not_satisfiable', undefined, null, {
          headers: { 'Content-Range': `bytes */${info.size}` },
        });
      }
      const body = await ctx.objects.get(info.name, range.kind === 'range' ? range.range : undefined);
      if (!body) throw new AppError('not_found', 'Object not found');
      if (range.kind === 'range') {
        reply.code(206);
        reply.header('Content-Range', `bytes ${range.range.start}-${range.range.end}/${info.size}`);
        reply.header('Content-Length', range.range.end - range.range.start + 1);
      } else {
        reply.header('Content-Length', info.size);
      }
      return reply.send(body.stream);
    },
  );
}
