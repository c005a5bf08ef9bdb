import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { sseSink } from './sse.js';

/** A raw response whose socket buffer is full until the test says otherwise. */
function fakeReply() {
  const raw = Object.assign(new EventEmitter(), {
    destroyed: false,
    writableEnded: false,
    full: false,
    written: [] as string[],
    head: undefined as undefined | { status: number; headers: Record<string, unknown> },
    writeHead(status: number, headers: Record<string, unknown>) {
      raw.head = { status, headers };
    },
    write(data: string) {
      raw.written.push(data);
      return !raw.full;
    },
    end() {
      raw.writableEnded = true;
    },
  });
  let hijacked = false;
  const reply = {
    raw,
    hijack: () => {
      hijacked = true;
    },
    getHeaders: () => ({ 'ratelimit-limit': 600 }),
  };
  return { reply, raw, hijacked: () => hijacked };
}

describe('SSE sink', () => {
  it('takes the response over from Fastify with event-stream headers, keeping headers set before', () => {
    const { reply, raw, hijacked } = fakeReply();
    sseSink(reply as never).start();
    expect(hijacked()).toBe(true);
    expect(raw.head?.status).toBe(200);
    expect(raw.head?.headers).toMatchObject({
      'content-type': 'text/event-stream; charset=utf-8',
      'ratelimit-limit': 600,
      'x-accel-buffering': 'no',
    });
  });

  it('writes each event as it comes and waits for drain when the client is slow', async () => {
    const { reply, raw } = fakeReply();
    const sink = sseSink(reply as never);
    sink.start();
    expect(await sink.send('{"a":1}')).toBe(true);
    raw.full = true;
    let settled: boolean | undefined;
    const pending = sink.send('{"a":2}').then((ok) => {
      settled = ok;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBeUndefined(); // still waiting: nothing more is pulled from upstream meanwhile
    raw.full = false;
    raw.emit('drain');
    await pending;
    expect(settled).toBe(true);
    expect(raw.written).toEqual(['data: {"a":1}\n\n', 'data: {"a":2}\n\n']);
  });

  it('reports a client that left while it waited, and writes nothing after that', async () => {
    const { reply, raw } = fakeReply();
    const sink = sseSink(reply as never);
    sink.start();
    raw.full = true;
    const pending = sink.send('x');
    raw.destroyed = true;
    raw.emit('close');
    expect(await pending).toBe(false);
    expect(await sink.send('y')).toBe(false);
    expect(raw.written).toEqual(['data: x\n\n']);
    sink.end();
    expect(raw.writableEnded).toBe(false);
  });
});
