// The API reads JSON bodies only. Fastify already answers 413 above bodyLimit (BODY_LIMIT_BYTES), 415
// for a Content-Type it has no parser for and 400 for malformed JSON (http/errors.ts gives each the
// one error shape); this plugin closes the two gaps in its defaults.
import type { FastifyInstance } from 'fastify';

/** Methods whose body is optional: clients often send `Content-Type: application/json` with none. */
const BODY_OPTIONAL = new Set(['DELETE', 'OPTIONS']);

export function registerJsonOnlyBodies(app: FastifyInstance): void {
  // Fastify parses text/plain by default, which would hand a route a string instead of a 415.
  // A plugin that truly needs another type (a panel form) registers its parser in its own scope.
  app.removeContentTypeParser('text/plain');

  // Same parser as Fastify's (prototype-poisoning checks included), except that an empty body on a
  // DELETE is "no body" rather than 400 "Body cannot be empty".
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser<string>('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body.length === 0 && BODY_OPTIONAL.has(request.method)) {
      done(null, undefined);
      return;
    }
    parseJson(request, body, done);
  });
}
