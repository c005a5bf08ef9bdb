// Reads an upstream text/event-stream body into chat chunks, one at a time, as the bytes arrive.
// The caller pulls one chunk and forwards it before pulling the next, so a slow client slows the
// upstream read too (backpressure reaches the upstream socket through undici).
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { ChatCompletionChunk } from '../../domain/chat/types.js';
import { AppError } from '../../domain/errors.js';
import { upstreamStreamError } from './upstream-errors.js';

export async function* readChatChunks(body: AsyncIterable<Uint8Array>): AsyncGenerator<ChatCompletionChunk> {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  const decoder = new TextDecoder();
  let done = false;
  let finished = false;
  for await (const bytes of body) {
    parser.feed(decoder.decode(bytes, { stream: true }));
    while (events.length > 0) {
      const event = events.shift()!;
      // After [DONE], keep reading to the end of the body so the connection returns to the pool.
      if (done) continue;
      if (event.data === '[DONE]') {
        done = true;
        continue;
      }
      const chunk = parseChunk(event);
      if (chunk.choices?.some((choice) => choice.finish_reason)) finished = true;
      yield chunk;
    }
  }
  // A clean end without [DONE] is accepted once a choice has finished (some compatible servers omit it).
  if (!done && !finished)
    throw new AppError('upstream_error', 'The upstream provider ended the stream before it was complete');
}

function parseChunk(event: EventSourceMessage): ChatCompletionChunk {
  let data: unknown;
  try {
    data = JSON.parse(event.data);
  } catch {
    throw new AppError('upstream_error', 'The upstream provider sent a stream event that is not JSON');
  }
  const record = data as { error?: unknown; choices?: unknown };
  if (event.event === 'error' || (record && typeof record === 'object' && record.error))
    throw upstreamStreamError(record?.error ?? data);
  if (!record || typeof record !== 'object' || !Array.isArray(record.choices)) {
    throw new AppError(
      'upstream_error',
      'The upstream provider sent a stream event that is not a chat.completion.chunk',
    );
  }
  return data as ChatCompletionChunk;
}
