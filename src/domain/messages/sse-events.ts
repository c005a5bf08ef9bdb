// The events of an Anthropic stream, read without being changed: the pass-through relays each
// event's text as it came. Anthropic frames an event as an `event:` line, a `data:` line and a
// blank line, every line ending in \n. An Anthropic-compatible server may end its lines with \r\n
// (or \r), or put an `id:` line first, as the event-stream format allows and the SDKs accept: those
// are read too (the WHATWG HTML standard, "Interpreting an event stream"). Anthropic's own framing
// takes the fast path.

/** A blank line: two line ends in a row, where a line ends with \r\n, \n or a lone \r. */
const BLANK_LINE = /(?:\r\n|\r(?!\n)|\n)(?:\r\n|\r(?!\n)|\n)/g;
const LINE_END = /\r\n|\r|\n/;

/**
 * Where the first whole event of `text` at or after `from` ends (past its blank line), or -1 when
 * the text holds none yet. `anyLineEnd`: the stream has shown a \r, so every line end counts.
 */
export function eventEnd(text: string, from: number, anyLineEnd: boolean): number {
  if (!anyLineEnd) {
    const at = text.indexOf('\n\n', from);
    return at < 0 ? -1 : at + 2;
  }
  BLANK_LINE.lastIndex = from;
  const blank = BLANK_LINE.exec(text);
  if (!blank) return -1;
  // A \r ending the text may be the first half of a \r\n: then the \n starts the next event's
  // text. The bytes relayed stay the same; only where they are cut moves.
  return blank.index + blank[0].length;
}

/** A field's value: what follows its colon, less one space (`data: x` and `data:x` are both x). */
const fieldValue = (line: string, colon: number) =>
  line.slice(line[colon + 1] === ' ' ? colon + 2 : colon + 1);

/** The event's type (its `event:` field), or undefined when it has none (a comment, a data-only event). */
export function eventType(event: string): string | undefined {
  if (event.startsWith('event: ')) {
    const newline = event.indexOf('\n', 7);
    const end = newline < 0 ? event.length : event[newline - 1] === '\r' ? newline - 1 : newline;
    const type = event.slice(7, end);
    if (!type.includes('\r')) return type;
  }
  let type: string | undefined;
  for (const line of event.split(LINE_END)) if (line.startsWith('event:')) type = fieldValue(line, 5);
  return type;
}

/** The JSON of the event's data (its `data:` lines joined), or null when it has none or it does not parse. */
export function eventData(event: string): Record<string, unknown> | null {
  const lines: string[] = [];
  for (const line of event.split(LINE_END)) if (line.startsWith('data:')) lines.push(fieldValue(line, 4));
  if (lines.length === 0) return null;
  try {
    const data = JSON.parse(lines.join('\n'));
    return data && typeof data === 'object' ? (data as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
