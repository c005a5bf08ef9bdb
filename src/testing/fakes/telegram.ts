// A Telegram Bot API fake on loopback: POST /bot<token>/sendMessage, checked as Telegram checks it
// (the token, a JSON body with chat_id and text). Each chat answers as scripted: delivered (200
// {ok: true}), blocked (403 "Forbidden: bot was blocked by the user"), unknown (400 "Bad Request:
// chat not found"), rate limited (429 with retry_after), failing (500) or hanging. `delivered`
// lists the messages Telegram accepted, i.e. answered with ok: what the owner actually received.
import { type FakeReply, type FakeRequest, FakeServer } from './fake-server.js';

export const TELEGRAM_TEST_TOKEN = '123456:TEST-token-abcdefghijklmnopqrstuvwxyz';

export type ChatBehaviour = 'deliver' | 'blocked' | 'not-found' | 'rate-limited' | 'fail' | 'hang';

export interface TelegramMessage {
  chatId: number;
  text: string;
  at: number;
}

export class TelegramFake {
  private readonly server = new FakeServer();
  /** Every sendMessage received, answered or not. */
  readonly received: TelegramMessage[] = [];
  /** The messages answered with ok: true. */
  readonly delivered: TelegramMessage[] = [];
  /** How each chat answers; `fallback` for the others. */
  readonly behaviours = new Map<number, ChatBehaviour>();
  fallback: ChatBehaviour = 'deliver';

  get apiUrl(): string {
    return this.server.origin;
  }

  async start(): Promise<this> {
    this.server.on('POST', /\/bot([^/]+)\/sendMessage/, (request, match) =>
      this.sendMessage(request, match[1]),
    );
    await this.server.start();
    return this;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  deliveredTo(chatId: number): TelegramMessage[] {
    return this.delivered.filter((m) => m.chatId === chatId);
  }

  private sendMessage(request: FakeRequest, token: string): FakeReply {
    if (token !== TELEGRAM_TEST_TOKEN)
      return { status: 401, json: { ok: false, error_code: 401, description: 'Unauthorized' } };
    const body = request.json as { chat_id?: unknown; text?: unknown } | undefined;
    if (typeof body?.chat_id !== 'number' || typeof body.text !== 'string' || body.text.length === 0)
      return {
        status: 400,
        json: { ok: false, error_code: 400, description: 'Bad Request: message text is empty' },
      };
    const message = { chatId: body.chat_id, text: body.text, at: Date.now() };
    this.received.push(message);
    switch (this.behaviours.get(message.chatId) ?? this.fallback) {
      case 'deliver':
        this.delivered.push(message);
        return {
          status: 200,
          json: { ok: true, result: { message_id: this.delivered.length, text: body.text } },
        };
      case 'blocked':
        return {
          status: 403,
          json: { ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' },
        };
      case 'not-found':
        return {
          status: 400,
          json: { ok: false, error_code: 400, description: 'Bad Request: chat not found' },
        };
      case 'rate-limited':
        return {
          status: 429,
          json: {
            ok: false,
            error_code: 429,
            description: 'Too Many Requests: retry after 1',
            parameters: { retry_after: 1 },
          },
        };
      case 'fail':
        return { status: 500, json: { ok: false, error_code: 500, description: 'Internal Server Error' } };
      case 'hang':
        return 'hang';
    }
  }
}
