// The pass-through's reading of an Anthropic event stream as it is relayed: split into SSE events,
// handed back ready to write (every event as received, except message_start, whose message.model
// becomes the public id), with what billing needs noted on the way: message_start's usage (the
// prompt), message_delta's (the final count), and the content deltas themselves, kept unparsed.
import { EMPTY_MESSAGES_USAGE, type MessagesUsage } from '../../domain/billing/messages-cost.js';
import { countTokens, type TokenizerFamily } from '../../domain/chat/token-count.js';
import { deliveredTexts, eventData } from '../../domain/messages/delivered-output.js';
import { mergeMessagesUsage, readMessagesUsage } from '../../domain/messages/usage.js';

const MESSAGE_START = 'event: message_start';
const MESSAGE_DELTA = 'event: message_delta';
const CONTENT_DELTA = 'event: content_block_delta';
const MESSAGE_STOP = 'event: message_stop';
const ERROR = 'event: error';

export class EventReader {
  private readonly decoder = new TextDecoder();
  private pending = '';
  private seen: Record<string, unknown> | null = null;
  private final = false;
  /** The content_block_delta events relayed, as text: read only to bill a cut stream. */
  private readonly deltas: string[] = [];
  stopped = false;
  failed = false;

  constructor(private readonly publicModel: string) {}

  push(bytes: Uint8Array): string {
    this.pending += this.decoder.decode(bytes, { stream: true });
    let out = '';
    let start = 0;
    for (;;) {
      const end = this.pending.indexOf('\n\n', start);
      if (end < 0) break;
      out += this.event(this.pending.slice(start, end + 2));
      start = end + 2;
    }
    this.pending = start === 0 ? this.pending : this.pending.slice(start);
    return out;
  }

  private event(text: string): string {
    if (text.startsWith(CONTENT_DELTA)) {
      this.deltas.push(text);
      return text;
    }
    if (text.startsWith(MESSAGE_START)) {
      const data = eventData(text);
      const message = data?.message as Record<string, unknown> | undefined;
      if (!message) return text;
      this.seen = (message.usage as Record<string, unknown>) ?? {};
      message.model = this.publicModel;
      return `${MESSAGE_START}\ndata: ${JSON.stringify(data)}\n\n`;
    }
    if (text.startsWith(MESSAGE_DELTA)) {
      const usage = eventData(text)?.usage;
      if (usage && typeof usage === 'object') {
        this.seen = { ...(this.seen ?? {}), ...(usage as Record<string, unknown>) };
        this.final = true;
      }
      return text;
    }
    if (text.startsWith(MESSAGE_STOP)) this.stopped = true;
    else if (text.startsWith(ERROR)) this.failed = true;
    return text;
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
    let counted: number;
    try {
      counted = await countTokens(family, texts);
    } catch {
      // The tokenizer failed to load: the settlement must still happen, so bill the output's
      // UTF-8 bytes (never fewer than its tokens), as chat does.
      counted = texts.reduce((sum, text) => sum + Buffer.byteLength(text, 'utf8'), 0);
    }
    return mergeMessagesUsage(usage, { outputTokens: Math.max(usage.outputTokens, counted) });
  }
}
