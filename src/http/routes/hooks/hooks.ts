// POST /hooks/{provider}: upstream callbacks. The raw body is kept for signature checks, whatever
// its content type. A callback is a hint to poll the job now; the answer says only whether it was
// taken (200), forged (401) or for no provider we know (404). Access 'system': no API key, and it
// keeps working in maintenance mode, like the workers.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.js';
import { AppError } from '../../../domain/errors.js';

/** Callbacks are small JSON documents; a larger body is not one. */
const HOOK_BODY_LIMIT = 1024 * 1024;

export async function registerHookRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: HOOK_BODY_LIMIT },
      (_request, body, done) => done(null, body),
    );
    scope.post<{ Params: { provider: string }; Querystring: Record<string, string | undefined> }>(
      '/hooks/:provider',
      { config: { access: 'system' }, schema: { hide: true } },
      async (request, reply) => {
        const result = await ctx.providerHooks.receive(request.params.provider, {
          headers: request.headers,
          rawBody: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
          query: request.query,
        });
        if (result.status === 'unknown_provider')
          throw new AppError('not_found', `No provider named ${request.params.provider}`);
        if (result.status === 'forged') throw new AppError('invalid_signature');
        return reply.send({ received: true });
      },
    );
  });
}
