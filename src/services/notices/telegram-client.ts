// The one Bot API call gengate makes: sendMessage. Telegram answers {ok: true, result} or
// {ok: false, error_code, description, parameters?: {retry_after}}; the outcome says whether the
// message went, was refused for good (the user blocked the bot, the chat does not exist), or may be
// retried (rate limited, Telegram failing, the network).
export type SendOutcome =
  | { kind: 'sent' }
  | { kind: 'refused'; error: string }
  | { kind: 'retry'; error: string; retryAfterMs?: number };

export class TelegramClient {
  constructor(
    private readonly apiUrl: string,
    private readonly token: string,
    private readonly timeoutMs: number,
  ) {}

  async sendMessage(chatId: number, text: string): Promise<SendOutcome> {
    let response: Response;
    try {
      response = await fetch(`${this.apiUrl}/bot${this.token}/sendMessage`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ chat_id: chatId, text, disable_web_page_preview: true }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      // Never the URL in the message: it carries the bot's token.
      return { kind: 'retry', error: `Telegram unreachable: ${(error as Error).name}` };
    }
    const body = (await response.json().catch(() => undefined)) as
      | { ok?: boolean; description?: string; parameters?: { retry_after?: number } }
      | undefined;
    if (response.ok && body?.ok === true) return { kind: 'sent' };
    const error = `${response.status} ${body?.description ?? 'no description'}`.slice(0, 500);
    if (response.status === 429) {
      const seconds = body?.parameters?.retry_after;
      return { kind: 'retry', error, retryAfterMs: typeof seconds === 'number' ? seconds * 1000 : undefined };
    }
    // 400 (chat not found, bad request) and 403 (bot blocked, user deactivated, never allowed the
    // bot) will not change by retrying.
    if (response.status === 400 || response.status === 403) return { kind: 'refused', error };
    return { kind: 'retry', error };
  }
}
