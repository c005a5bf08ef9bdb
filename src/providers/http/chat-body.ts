// Reading a chat upstream's answer, shared by the chat adapters: an error body read up to a cap, and
// a stream of chunks that turns a broken connection into our upstream error and drops the upstream
// request as soon as the consumer stops (client gone, upstream error event).
import type { Dispatcher } from 'undici';
import { AppError } from '../../domain/errors.js';
import type { Cancellation } from '../cancellation.js';
import { upstreamNetworkError } from '../openai/upstream-errors.js';

type Body = Dispatcher.ResponseData['body'];

/** The first `limit` characters of a body, which is read to its end so the connection is reused. */
export async function readCapped(body: Body, limit: number): Promise<string> {
  let text = '';
  const decoder = new TextDecoder();
  for await (const bytes of body) {
    if (text.length < limit) text += decoder.decode(bytes as Uint8Array, { stream: true });
  }
  return text.slice(0, limit);
}

/** A whole JSON answer; a broken connection is our upstream error, a non-JSON body a 502. */
export async function readJson(body: Body, cancellation: Cancellation): Promise<unknown> {
  let text: string;
  try {
    text = await body.text();
  } catch (error) {
    throw cancellation.aborted ? error : upstreamNetworkError(error);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError('upstream_error', 'The upstream provider answered with a body that is not JSON');
  }
}

/** `chunks` parsed from `body`, ending the upstream request when iteration stops early. */
export function upstreamChunks<T>(
  body: Body,
  chunks: AsyncIterable<T>,
  cancellation: Cancellation,
): AsyncIterable<T> {
  return {
    async *[Symbol.asyncIterator]() {
      try {
        yield* chunks;
      } catch (error) {
        throw cancellation.aborted ? error : upstreamNetworkError(error);
      } finally {
        if (!body.readableEnded) body.destroy();
      }
    },
  };
}
