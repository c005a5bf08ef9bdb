// Low-balance notices: the owner's Telegram message when a key's funds fall below the account's
// threshold. The notice was written to the outbox (balance_notices) by the movement that crossed,
// in its own transaction or statement; here a worker leases due notices and sends each one. The
// lease covers one send plus LEASE_MS, so a live sender keeps it and a dead one's notices are taken
// over LEASE_MS after its lease ends: nothing is lost. A send is recorded as soon as Telegram
// answers; only a crash between Telegram's answer and that record sends a notice twice.
import { maskApiKey } from '../../domain/keys/api-key.js';
import { BalanceNoticesRepository, type LeasedNotice } from '../../storage/repositories/balance-notices.js';
import type { Storage } from '../../storage/storage.js';
import type { Clock } from '../clock.js';
import { type SendOutcome, TelegramClient } from './telegram-client.js';

interface NoticeConfig {
  telegramBotToken: string | undefined;
  telegramApiUrl: string;
  webhookTimeoutMs: number;
  webhookRetryDelaysMs: number[];
  leaseMs: number;
}

/** Rubles with kopecks, for a message (presentation only). */
function rub(micro: number): string {
  const kopecks = Math.floor(micro / 10_000);
  return `${Math.floor(kopecks / 100)}.${String(kopecks % 100).padStart(2, '0')} RUB`;
}

export function noticeText(notice: LeasedNotice): string {
  const key = `${notice.key_name ? `"${notice.key_name}" ` : ''}(${maskApiKey(notice.key_prefix, notice.key_last4)})`;
  return (
    `gengate: the balance of your key ${key} is ${rub(Number(notice.funds))}, ` +
    `below your alert threshold of ${rub(Number(notice.threshold))}. ` +
    'Top it up to keep its requests running.'
  );
}

export class LowBalanceNotices {
  private readonly client: TelegramClient | undefined;
  private readonly notices: BalanceNoticesRepository;

  constructor(private readonly deps: { storage: Storage; clock: Clock; config: NoticeConfig }) {
    const { config } = deps;
    this.client = config.telegramBotToken
      ? new TelegramClient(config.telegramApiUrl, config.telegramBotToken, config.webhookTimeoutMs)
      : undefined;
    this.notices = new BalanceNoticesRepository(deps.storage.db);
  }

  /** Without TELEGRAM_BOT_TOKEN nothing is sent: notices wait in the outbox. */
  get enabled(): boolean {
    return this.client !== undefined;
  }

  get leaseMs(): number {
    return this.deps.config.webhookTimeoutMs + this.deps.config.leaseMs;
  }

  claimDue(limit: number): Promise<LeasedNotice[]> {
    return this.notices.claimDue(this.deps.clock.now(), this.leaseMs, limit);
  }

  /** Sends one leased notice and records the outcome; false when the lease was lost meanwhile. */
  async attempt(notice: LeasedNotice): Promise<boolean> {
    if (!this.client) throw new Error('TELEGRAM_BOT_TOKEN is not set');
    const outcome = await this.client.sendMessage(notice.messaging_id, noticeText(notice));
    return this.notices.recordAttempt(notice, this.resultOf(notice, outcome));
  }

  private resultOf(notice: LeasedNotice, outcome: SendOutcome) {
    const now = this.deps.clock.now();
    const attempts = notice.attempts + 1;
    if (outcome.kind === 'sent')
      return { status: 'sent' as const, attempts, nextAttemptAt: now, error: null, sentAt: now };
    if (outcome.kind === 'refused')
      return { status: 'refused' as const, attempts, nextAttemptAt: now, error: outcome.error, sentAt: null };
    // Retried on the webhooks' schedule (WEBHOOK_RETRY_DELAYS_MS), then given up as failed.
    const delays = this.deps.config.webhookRetryDelaysMs;
    if (attempts > delays.length)
      return { status: 'failed' as const, attempts, nextAttemptAt: now, error: outcome.error, sentAt: null };
    const delay = Math.max(delays[attempts - 1], outcome.retryAfterMs ?? 0);
    return {
      status: 'pending' as const,
      attempts,
      nextAttemptAt: now + delay,
      error: outcome.error,
      sentAt: null,
    };
  }
}
