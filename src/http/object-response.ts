// Sends a stored object with its Content-Type and Range support (206, 416): shared by the native
// result URLs and the OpenAI video content endpoint.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.js';
import type { ObjectStore, StoredObject } from '../objects/object-store.js';
import { parseRange } from './range.js';

export async function sendStoredObject(
  objects: ObjectStore,
  info: StoredObject,
  request: FastifyRequest,
  reply: FastifyReply,
  whenMissing: AppError,
): Promise<FastifyReply> {
  const range = parseRange(request.headers.range, info.size);
  reply.header('Accept-Ranges', 'bytes');
  reply.type(info.contentType);
  if (range.kind === 'unsatisfiable') {
    throw new AppError('range_not_satisfiable', undefined, null, {
      headers: { 'Content-Range': `bytes */${info.size}` },
    });
  }
  const body = await objects.get(info.name, range.kind === 'range' ? range.range : undefined);
  if (!body) throw whenMissing;
  if (range.kind === 'range') {
    reply.code(206);
    reply.header('Content-Range', `bytes ${range.range.start}-${range.range.end}/${info.size}`);
    reply.header('Content-Length', range.range.end - range.range.start + 1);
  } else {
    reply.header('Content-Length', info.size);
  }
  return reply.send(body.stream);
}
