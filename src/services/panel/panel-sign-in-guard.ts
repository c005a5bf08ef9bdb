// Sign-in attempts of the panel: counted per client address and per account over the rate
// limiter's one-minute windows (shared across processes through Redis when configured), and failed
// attempts written to the audit log. A TOTP guess also needs a first factor (a link or Telegram);
// the code itself is checked within the account's SecondFactorLimit, shared with every other step
// that checks a code, which also writes its audit rows.
import { AppError } from '../../domain/errors.js';
import type { Storage } from '../../storage/storage.js';
import type { Clock } from '../clock.js';
import type { RateLimiter } from '../rate-limit.js';

export const SIGN_IN_ATTEMPTS_PER_IP_PER_MIN = 20;
export const SIGN_IN_ATTEMPTS_PER_ACCOUNT_PER_MIN = 5;

export type SignInFailure = 'link_invalid' | 'telegram_invalid' | 'telegram_unknown_account';

export class PanelSignInGuard {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly storage: Storage,
    private readonly clock: Clock,
  ) {}

  /** Counts one attempt; refuses (429) past either limit. */
  async attempt(ip: string, accountId?: number): Promise<void> {
    const checks = [this.limiter.consume(`panel-sign-in:ip:${ip}`, SIGN_IN_ATTEMPTS_PER_IP_PER_MIN)];
    if (accountId !== undefined) {
      checks.push(
        this.limiter.consume(`panel-sign-in:account:${accountId}`, SIGN_IN_ATTEMPTS_PER_ACCOUNT_PER_MIN),
      );
    }
    const decisions = await Promise.all(checks);
    const refused = decisions.find((d) => !d.allowed);
    if (refused) {
      throw new AppError('rate_limited', 'Too many sign-in attempts: wait a minute and try again.', null, {
        headers: { 'Retry-After': String(refused.resetSeconds) },
      });
    }
  }

  async failed(
    ip: string,
    accountId: number | undefined,
    reason: SignInFailure,
    details: Record<string, unknown> = {},
  ) {
    await this.storage.audit.append({
      accountId: accountId ?? null,
      actor: 'owner',
      action: 'panel.login_failed',
      details: { reason, ...details },
      ip,
      now: this.clock.now(),
    });
  }
}
