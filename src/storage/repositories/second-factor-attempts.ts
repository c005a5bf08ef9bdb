// Second-factor code checks of one account, counted in the database so that every process and
// every restart sees the same count. Each write is one conditional UPDATE (or a compare-and-set on
// the values just read), so concurrent guesses on PostgreSQL and SQLite alike cannot take more
// checks than the limit allows.
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

export interface SecondFactorAttemptsTable {
  account_id: number;
  failures: number;
  lockouts: number;
  locked_until: number | null;
  refused: number;
  updated_at: number;
}

export interface SecondFactorAttemptState {
  failures: number;
  lockouts: number;
  lockedUntil: number | null;
  refused: number;
}

type Tables = Database & { panel_second_factor_attempts: SecondFactorAttemptsTable };

export class SecondFactorAttemptsRepository {
  private readonly db: Kysely<Tables>;

  constructor(db: Kysely<Database>) {
    this.db = db.withTables<{ panel_second_factor_attempts: SecondFactorAttemptsTable }>();
  }

  async state(accountId: number): Promise<SecondFactorAttemptState> {
    const row = await this.db
      .selectFrom('panel_second_factor_attempts')
      .selectAll()
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return {
      failures: Number(row?.failures ?? 0),
      lockouts: Number(row?.lockouts ?? 0),
      lockedUntil: row?.locked_until == null ? null : Number(row.locked_until),
      refused: Number(row?.refused ?? 0),
    };
  }

  /**
   * Takes one check: counts it as a failure before the code is looked at (a right code gives it
   * back through `succeeded`). False, and the refusal counted, while the account is locked or
   * `maxFailures` checks are already taken.
   */
  async take(accountId: number, maxFailures: number, now: number): Promise<boolean> {
    await this.db
      .insertInto('panel_second_factor_attempts')
      .values({
        account_id: accountId,
        failures: 0,
        lockouts: 0,
        locked_until: null,
        refused: 0,
        updated_at: now,
      })
      .onConflict((oc) => oc.column('account_id').doNothing())
      .execute();
    const taken = await this.db
      .updateTable('panel_second_factor_attempts')
      .set((eb) => ({ failures: eb('failures', '+', 1), updated_at: now }))
      .where('account_id', '=', accountId)
      .where('failures', '<', maxFailures)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
      .executeTakeFirst();
    if (Number(taken.numUpdatedRows) === 1) return true;
    await this.db
      .updateTable('panel_second_factor_attempts')
      .set((eb) => ({ refused: eb('refused', '+', 1), updated_at: now }))
      .where('account_id', '=', accountId)
      .execute();
    return false;
  }

  /** A right code: the count, the lock and its escalation start over. */
  async succeeded(accountId: number, now: number): Promise<void> {
    await this.db
      .updateTable('panel_second_factor_attempts')
      .set({ failures: 0, lockouts: 0, locked_until: null, refused: 0, updated_at: now })
      .where('account_id', '=', accountId)
      .execute();
  }

  /**
   * Locks the account until `until` when it has used up its checks and no lock is in force, as a
   * compare-and-set on the lock count read before: of several failures landing at once, exactly
   * one locks. True for that one.
   */
  async lock(accountId: number, maxFailures: number, seenLockouts: number, until: number, now: number) {
    const locked = await this.db
      .updateTable('panel_second_factor_attempts')
      .set((eb) => ({
        failures: 0,
        lockouts: eb('lockouts', '+', 1),
        locked_until: until,
        refused: 0,
        updated_at: now,
      }))
      .where('account_id', '=', accountId)
      .where('lockouts', '=', seenLockouts)
      .where('failures', '>=', maxFailures)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
      .executeTakeFirst();
    return Number(locked.numUpdatedRows) === 1;
  }
}
