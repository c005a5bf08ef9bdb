// The pass-through's reading of an Anthropic event stream as it is relayed: split into SSE events,
// handed back ready to write (every event as received, except message_start, whose message.model
// becomes the public id), with what billing needs noted on the way: message_start's usage (the
// prompt), message_delta's (the final count), and the content deltas themselves, kept unparsed.
// Events are told apart by their `event:` field, in any of the framings sse-events.ts reads.
import { EMPTY_MESSAGES_USAGE, type MessagesUsage } from '../../domain/billing/messages-cost.js';
import { countTokens, type TokenizerFamily, utf8Bytes } from '../../domain/chat/token-count.js';
import { deliveredTexts } from '../../domain/messages/delivered-output.js';
import { eventData, eventEnd, eventType } from '../../domain/messages/sse-events.js';
import { mergeMessagesUsage, readMessagesUsage } from '../../domain/messages/usage.js';

export class EventReader {
  private readonly decoder = new TextDecoder();
  private pending = '';
  private seen: Record<string, unknown> | null = null;
  private final = false;
  /** The content_block_delta events relayed, as text: read only to bill a cut stream. */
  private readonly deltas: string[] = [];
  /** A \r has come: lines may end in \r\n or \r, not only in \n (Anthropic's own framing). */
  private anyLineEnd = false;
  stopped = false;
  failed = false;

  constructor(private readonly publicModel: string) {}

  push(bytes: Uint8Array): string {
    const text = this.decoder.decode(bytes, { stream: true });
    if (!this.anyLineEnd && text.includes('\r')) this.anyLineEnd = true;
    this.pending += text;
    let out = '';
    let start = 0;
    for (;;) {
      const end = eventEnd(this.pending, start, this.anyLineEnd);
      if (end < 0) break;
      out += this.event(this.pending.slice(start, end));
      start = end;
    }
    this.pending = start === 0 ? this.pending : this.pending.slice(start);
    return out;
  }

  private event(text: string): string {
    switch (eventType(text)) {
      case 'content_block_delta':
        this.deltas.push(text);
        return text;
      case 'message_start': {
        const data = eventData(text);
        const message = data?.message as Record<string, unknown> | undefined;
        if (!message) return text;
        this.seen = (message.usage as Record<string, unknown>) ?? {};
        message.model = this.publicModel;
        return `event: message_start\ndata: ${JSON.stringify(data)}\n\n`;
      }
      case 'message_delta': {
        const usage = eventData(text)?.usage;
        if (usage && typeof usage === 'object') {
          this.seen = { ...(this.seen ?? {}), ...(usage as Record<string, unknown>) };
          this.final = true;
        }
        return text;
      }
      case 'message_stop':
        this.stopped = true;
        return text;
      case 'error':
        this.failed = true;
        return text;
      default:
        return text;
    }
  }

  /**
   * At the stream's end, the line ends that followed its last event, to be relayed as they came (a
   * \r\n cut between two chunks leaves its \n here). A torn event is not relayed.
   */
  rest(): string {
    const rest = /^[\r\n]*$/.test(this.pending) ? this.pending : '';
    this.pending = '';
    return rest;
  }

  /**
   * The usage to bill; null when nothing was reported (the stream broke before message_start).
   * Once message_delta came, its count covers all the output, cut or not. Before it, message_start
   * counted the prompt, and the output is what the content deltas relayed hold, counted as chat
   * counts a cut stream (token-count.ts: for Claude an upper bound of its tokenizer), and never
   * less than the upstream's own running count.
   */
  async usage(family: TokenizerFamily): Promise<MessagesUsage | null> {
    if (!this.seen) return null;
    const usage = readMessagesUsage(this.seen) ?? EMPTY_MESSAGES_USAGE;
    if (this.final) return usage;
    const texts = deliveredTexts(this.deltas);
    // A tokenizer that fails to load must not stop the settlement: the bytes, as chat bills them.
    const counted = await countTokens(family, texts).catch(() => utf8Bytes(texts));
    return mergeMessagesUsage(usage, { outputTokens: Math.max(usage.outputTokens, counted) });
  }
}
