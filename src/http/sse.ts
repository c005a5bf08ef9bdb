// Server-Sent Events straight onto the raw response: Fastify is told to step aside (hijack), each
// event is written and flushed as it comes, and a slow client makes the writer wait for 'drain'
// instead of buffering the whole answer in memory.
import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import type { ChatStreamSink } from '../services/chat/chat-call.js';
import type { MessagesStreamSink } from '../services/messages/messages-call.js';

function drained(res: ServerResponse): Promise<boolean> {
  return new Promise((resolve) => {
    const finish = (ok: boolean) => () => {
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(ok);
    };
    const onDrain = finish(true);
    const onClose = finish(false);
    res.on('drain', onDrain);
    res.on('close', onClose);
  });
}

export function sseSink(reply: FastifyReply): ChatStreamSink {
  const raw = rawSseSink(reply);
  return {
    start: raw.start,
    send: (data) => raw.write(`data: ${data}\n\n`),
    end: raw.end,
  };
}

/** The same stream, written as given: for callers that frame their own events (event: lines). */
export function rawSseSink(reply: FastifyReply): MessagesStreamSink {
  const res = reply.raw;
  const gone = () => res.destroyed || res.writableEnded;
  return {
    start() {
      reply.hijack();
      // Headers set earlier on the reply (rate-limit headers) would be lost by hijack: copy them.
      const headers: Record<string, string | number | string[]> = {};
      for (const [name, value] of Object.entries(reply.getHeaders()))
        if (value !== undefined) headers[name] = value;
      res.writeHead(200, {
        ...headers,
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        // Tells nginx-style proxies not to buffer the stream either.
        'x-accel-buffering': 'no',
      });
    },
    async write(text) {
      if (gone()) return false;
      if (res.write(text)) return true;
      return drained(res);
    },
    end() {
      if (!gone()) res.end();
    },
  };
}
