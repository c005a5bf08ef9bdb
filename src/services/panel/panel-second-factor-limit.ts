// One limit for every check of an account's second-factor code, whichever step asks (sign-in,
// turning 2FA on or off, new recovery codes), so guesses cannot be spread across endpoints. After
// SECOND_FACTOR_MAX_FAILURES wrong codes in a row every check is refused for a lock-out that doubles
// each time (15 minutes up to a day) until a right code is typed. Counted in the database: the limit
// holds across processes, engines and restarts. Every checked code, right or wrong, and every
// lock-out is written to the owner's audit log; attempts refused by a lock are counted, not logged
// one by one, so a guesser cannot flood the log.
import { SecondFactorAttemptsRepository } from '../../storage/repositories/second-factor-attempts.js';
import type { Storage } from '../../storage/storage.js';
import type { Actor } from '../accounts.js';
import type { Clock } from '../clock.js';

export const SECOND_FACTOR_MAX_FAILURES = 5;
export const SECOND_FACTOR_LOCK_MS = 15 * 60_000;
export const SECOND_FACTOR_MAX_LOCK_MS = 24 * 3600_000;

/** Where a code was typed: written in the audit rows. */
export type SecondFactorStep = 'sign_in' | 'enable' | 'disable' | 'recovery_codes';

export type CodeCheck<T> =
  | { outcome: 'accepted'; value: T }
  | { outcome: 'rejected'; attemptsLeft: number; lockedUntil?: number }
  | { outcome: 'locked'; lockedUntil: number };

export interface SecondFactorLockState {
  /** Wrong codes since the last right one (counting checks still running). */
  failures: number;
  attemptsLeft: number;
  /** Set while a lock-out is in force. */
  lockedUntil?: number;
  /** Attempts refused during the current lock-out. */
  refused: number;
}

/** The length of the lock after `lockouts` earlier ones: 15 min, 30, 60 … capped at a day. */
export function lockDurationMs(lockouts: number): number {
  return Math.min(SECOND_FACTOR_MAX_LOCK_MS, SECOND_FACTOR_LOCK_MS * 2 ** Math.min(lockouts, 16));
}

export class SecondFactorLimit {
  private readonly attempts: SecondFactorAttemptsRepository;

  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
  ) {
    this.attempts = new SecondFactorAttemptsRepository(storage.db);
  }

  async state(accountId: number): Promise<SecondFactorLockState> {
    const s = await this.attempts.state(accountId);
    const locked = s.lockedUntil !== null && s.lockedUntil > this.clock.now();
    return {
      failures: locked ? 0 : s.failures,
      attemptsLeft: locked ? 0 : Math.max(0, SECOND_FACTOR_MAX_FAILURES - s.failures),
      lockedUntil: locked ? (s.lockedUntil ?? undefined) : undefined,
      refused: locked ? s.refused : 0,
    };
  }

  /**
   * Runs `verify` (which answers undefined for a wrong code) only if the account may check a code
   * now, and records the outcome.
   */
  async check<T>(
    accountId: number,
    step: SecondFactorStep,
    by: Actor,
    verify: () => Promise<T | undefined>,
  ): Promise<CodeCheck<T>> {
    const now = this.clock.now();
    if (!(await this.attempts.take(accountId, SECOND_FACTOR_MAX_FAILURES, now))) {
      const s = await this.attempts.state(accountId);
      // Checks used up but the lock not written yet (the last failures are landing): it is
      // about to be, for the next lock's length.
      const lockedUntil =
        s.lockedUntil !== null && s.lockedUntil > now ? s.lockedUntil : now + lockDurationMs(s.lockouts);
      return { outcome: 'locked', lockedUntil };
    }
    let value: T | undefined;
    try {
      value = await verify();
    } catch (error) {
      // The check stays counted: a guess that makes verification fail is still a guess.
      await this.failed(accountId, step, by);
      throw error;
    }
    if (value !== undefined) {
      await this.attempts.succeeded(accountId, this.clock.now());
      await this.audit(accountId, by, 'panel.2fa_code_accepted', { step });
      return { outcome: 'accepted', value };
    }
    return this.failed(accountId, step, by);
  }

  private async failed(accountId: number, step: SecondFactorStep, by: Actor): Promise<CodeCheck<never>> {
    const now = this.clock.now();
    const s = await this.attempts.state(accountId);
    if (s.lockedUntil !== null && s.lockedUntil > now) {
      // A concurrent failure has just locked the account.
      await this.audit(accountId, by, 'panel.2fa_code_rejected', { step, attempts_left: 0 });
      return { outcome: 'rejected', attemptsLeft: 0, lockedUntil: s.lockedUntil };
    }
    const attemptsLeft = Math.max(0, SECOND_FACTOR_MAX_FAILURES - s.failures);
    await this.audit(accountId, by, 'panel.2fa_code_rejected', { step, attempts_left: attemptsLeft });
    if (attemptsLeft > 0) return { outcome: 'rejected', attemptsLeft };
    const until = now + lockDurationMs(s.lockouts);
    if (await this.attempts.lock(accountId, SECOND_FACTOR_MAX_FAILURES, s.lockouts, until, now)) {
      await this.audit(accountId, by, 'panel.2fa_locked', {
        step,
        failures: SECOND_FACTOR_MAX_FAILURES,
        until: new Date(until).toISOString(),
      });
      return { outcome: 'rejected', attemptsLeft: 0, lockedUntil: until };
    }
    const current = await this.attempts.state(accountId);
    const lockedUntil =
      current.lockedUntil !== null && current.lockedUntil > now ? current.lockedUntil : undefined;
    return { outcome: 'rejected', attemptsLeft: 0, lockedUntil };
  }

  private audit(accountId: number, by: Actor, action: string, details: Record<string, unknown>) {
    return this.storage.audit.append({ accountId, ...by, action, details, now: this.clock.now() });
  }
}
