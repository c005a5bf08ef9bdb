import { describe, expect, it } from 'vitest';
import { eventData, eventEnd, eventType } from './sse-events.js';

/** Every whole event of `text`, as eventEnd cuts them. */
function events(text: string): string[] {
  const anyLineEnd = text.includes('\r');
  const found: string[] = [];
  let start = 0;
  for (let end = eventEnd(text, 0, anyLineEnd); end >= 0; end = eventEnd(text, start, anyLineEnd)) {
    found.push(text.slice(start, end));
    start = end;
  }
  return found;
}

describe('eventEnd', () => {
  it('cuts after each blank line, whatever the line ends', () => {
    expect(events('event: a\ndata: 1\n\nevent: b\ndata: 2\n\nevent: c')).toEqual([
      'event: a\ndata: 1\n\n',
      'event: b\ndata: 2\n\n',
    ]);
    expect(events('event: a\r\ndata: 1\r\n\r\nevent: b\r\ndata: 2\r\n\r\n')).toEqual([
      'event: a\r\ndata: 1\r\n\r\n',
      'event: b\r\ndata: 2\r\n\r\n',
    ]);
    expect(events('event: a\rdata: 1\r\revent: b\n\r\n')).toEqual([
      'event: a\rdata: 1\r\r',
      'event: b\n\r\n',
    ]);
  });

  it('a \\r\\n is one line end, not a blank line', () => {
    expect(events('event: a\r\ndata: 1\r\n')).toEqual([]);
  });

  it('without a \\r seen, only \\n\\n ends an event (the fast path)', () => {
    expect(eventEnd('data: 1\n\n', 0, false)).toBe(9);
    expect(eventEnd('data: 1\r\n\r\n', 0, true)).toBe(11);
  });
});

describe('eventType', () => {
  it('reads the event field, first or not, with or without its space', () => {
    expect(eventType('event: message_start\ndata: {}\n\n')).toBe('message_start');
    expect(eventType('event: message_start\r\ndata: {}\r\n\r\n')).toBe('message_start');
    expect(eventType('event: ping\rdata: {}\r\r')).toBe('ping');
    expect(eventType('id: 7\nevent:message_delta\ndata: {}\n\n')).toBe('message_delta');
  });

  it('none for a comment or a data-only event', () => {
    expect(eventType(': keep-alive\n\n')).toBeUndefined();
    expect(eventType('data: {"type":"ping"}\n\n')).toBeUndefined();
  });
});

describe('eventData', () => {
  it('parses the data lines, joined, whatever the line ends', () => {
    expect(eventData('event: x\ndata: {"a":1}\n\n')).toEqual({ a: 1 });
    expect(eventData('event: x\r\ndata:{"a":1}\r\n\r\n')).toEqual({ a: 1 });
    expect(eventData('data: {"a":\ndata: [1,\ndata: 2]}\n\n')).toEqual({ a: [1, 2] });
  });

  it('null without data, or when it is not a JSON object', () => {
    expect(eventData('event: x\n\n')).toBeNull();
    expect(eventData('event: x\ndata: {not json\n\n')).toBeNull();
    expect(eventData('event: x\ndata: 3\n\n')).toBeNull();
  });
});
