// The Telegram Login Widget on the sign-in page (when TELEGRAM_BOT_TOKEN is set); telegram.ts
// serves where it sends the browser.
import type { Config } from '../../config.js';
import { escapeHtml } from '../../web/html.js';

/** Telegram's own script, the one external script the panel loads (sign-in page only). It asks for
 * write access: a bot may message only users who allowed it, and it sends the low-balance notices. */
export function telegramWidget(config: Config): string {
  return `<div class="telegram-login"><p class="muted">Or sign in with the Telegram account your gengate account belongs to:</p>
<script async src="https://telegram.org/js/telegram-widget.js?22" data-telegram-login="${escapeHtml(config.telegramBotUsername)}" data-size="large" data-request-access="write" data-auth-url="${escapeHtml(`${config.publicUrl}/panel/telegram`)}"></script></div>`;
}
