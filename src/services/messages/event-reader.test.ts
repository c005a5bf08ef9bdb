// The pass-through's reading of an upstream's events: relayed as they came (message_start's model
// aside) and billed from what they report, for Anthropic's framing and the other framings an
// event stream may use, however the bytes are cut into chunks.
import { describe, expect, it } from 'vitest';
import { countTokens } from '../../domain/chat/token-count.js';
import { EventReader } from './event-reader.js';

type Framing = { lineEnd: string; ids?: boolean };

function stream({ lineEnd: n, ids }: Framing, events: [string, Record<string, unknown>][]): string[] {
  return events.map(
    ([type, data], i) =>
      `${ids ? `id: ${i}${n}` : ''}event: ${type}${n}data: ${JSON.stringify({ type, ...data })}${n}${n}`,
  );
}

const start = {
  message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-upstream-id', content: [] },
};
const delta = (text: string) => ({ index: 0, delta: { type: 'text_delta', text } });

/** Each event text the reader handed back, for the stream fed in chunks of `size` bytes. */
function relay(reader: EventReader, text: string, size: number): string {
  const bytes = Buffer.from(text);
  let out = '';
  for (let at = 0; at < bytes.length; at += size) out += reader.push(bytes.subarray(at, at + size));
  return out + reader.rest();
}

const framings: [string, Framing][] = [
  ['Anthropic’s own (\\n)', { lineEnd: '\n' }],
  ['\\r\\n line ends', { lineEnd: '\r\n' }],
  ['\\r line ends', { lineEnd: '\r' }],
  ['an id line before each event', { lineEnd: '\r\n', ids: true }],
];

describe.each(framings)('EventReader, %s', (_name, framing) => {
  const events = stream(framing, [
    ['message_start', { message: { ...start.message, usage: { input_tokens: 12, output_tokens: 1 } } }],
    ['content_block_start', { index: 0, content_block: { type: 'text', text: '' } }],
    ['ping', {}],
    ['content_block_delta', delta('Hello ')],
    ['content_block_delta', delta('there')],
    ['content_block_stop', { index: 0 }],
    ['message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } }],
    ['message_stop', {}],
  ]);

  it('relays every event as it came, the model in message_start made public, in chunks of any size', async () => {
    for (const size of [1, 2, 3, 7, 64, 4096]) {
      const reader = new EventReader('claude-public');
      const out = relay(reader, events.join(''), size);
      expect(out.endsWith(events.slice(1).join(''))).toBe(true);
      const first = out.slice(0, out.length - events.slice(1).join('').length);
      expect(first).toMatch(/^event: message_start\ndata: /);
      expect(JSON.parse(first.slice(first.indexOf('data: ') + 6)).message.model).toBe('claude-public');
      expect(reader.stopped).toBe(true);
      expect(reader.failed).toBe(false);
      expect(await reader.usage('bound')).toMatchObject({ inputTokens: 12, outputTokens: 2 });
    }
  });

  it('a stream cut before message_delta is billed from the text its deltas delivered', async () => {
    const reader = new EventReader('claude-public');
    relay(reader, events.slice(0, 5).join(''), 5);
    expect(reader.stopped).toBe(false);
    // message_start counted 1 output token; the two deltas' text counts more.
    const delivered = await countTokens('bound', ['Hello there']);
    expect(delivered).toBeGreaterThan(1);
    expect(await reader.usage('bound')).toMatchObject({ inputTokens: 12, outputTokens: delivered });
  });

  it('notes an error event', () => {
    const reader = new EventReader('claude-public');
    const [error] = stream(framing, [
      ['error', { error: { type: 'overloaded_error', message: 'Overloaded' } }],
    ]);
    expect(reader.push(Buffer.from(error))).toBe(error);
    expect(reader.failed).toBe(true);
  });
});

describe('EventReader.rest', () => {
  it('hands back the line ends left after the last event, never a torn event', () => {
    const reader = new EventReader('claude-public');
    expect(reader.push(Buffer.from('event: ping\r\ndata: {"type":"ping"}\r\n\r'))).toBe(
      'event: ping\r\ndata: {"type":"ping"}\r\n\r',
    );
    reader.push(Buffer.from('\n'));
    expect(reader.rest()).toBe('\n');
    reader.push(Buffer.from('event: message_stop\r\ndata: {"type":'));
    expect(reader.rest()).toBe('');
    expect(reader.stopped).toBe(false);
  });
});
