// Two-factor authentication of the panel: a TOTP secret the owner scans, confirmed with a code
// before it counts; ten recovery codes shown once and stored as hashes; each code works once. Every
// code check goes through the account's one SecondFactorLimit (attempts, lock-out, audit rows).
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { base32Decode, base32Encode, matchTotp } from '../../domain/panel/totp.js';
import type { Database } from '../../storage/schema.js';
import type { Storage } from '../../storage/storage.js';
import type { Actor } from '../accounts.js';
import type { Clock } from '../clock.js';
import { type CodeCheck, SecondFactorLimit } from './panel-second-factor-limit.js';

type PanelAuthTables = {
  panel_totp: {
    account_id: number;
    secret: string;
    enabled_at: number | null;
    last_step: number | null;
    created_at: number;
  };
  panel_recovery_codes: {
    code_hash: string;
    account_id: number;
    used_at: number | null;
    created_at: number;
  };
};

const RECOVERY_CODES = 10;
/** 160-bit secrets, as RFC 4226 recommends. */
const SECRET_BYTES = 20;

/** Recovery codes are typed by people: case, spaces and dashes do not matter. */
const normalizeRecovery = (code: string) => code.toUpperCase().replace(/[^A-Z2-7]/g, '');
const hashRecovery = (code: string) =>
  createHash('sha256')
    .update(`gengate-recovery\0${normalizeRecovery(code)}`)
    .digest('hex');

function newRecoveryCode(): string {
  const text = base32Encode(randomBytes(7)).slice(0, 10);
  return `${text.slice(0, 5)}-${text.slice(5)}`;
}

export type SecondFactorUsed = 'totp' | 'recovery_code';

export interface TwoFactorStatus {
  enabled: boolean;
  /** A secret was made but not confirmed with a code yet. */
  pendingSecret?: string;
  recoveryCodesLeft: number;
}

export class PanelTwoFactor {
  readonly limit: SecondFactorLimit;

  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
  ) {
    this.limit = new SecondFactorLimit(storage, clock);
  }

  private db(storage = this.storage): Kysely<Database & PanelAuthTables> {
    return storage.db.withTables<PanelAuthTables>();
  }

  async status(accountId: number): Promise<TwoFactorStatus> {
    const row = await this.db()
      .selectFrom('panel_totp')
      .selectAll()
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    const left = await this.db()
      .selectFrom('panel_recovery_codes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    const enabled = row?.enabled_at != null;
    return {
      enabled,
      pendingSecret: row && !enabled ? row.secret : undefined,
      recoveryCodesLeft: enabled ? Number(left?.n ?? 0) : 0,
    };
  }

  async isEnabled(accountId: number): Promise<boolean> {
    const row = await this.db()
      .selectFrom('panel_totp')
      .select('enabled_at')
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return row?.enabled_at != null;
  }

  /** A fresh pending secret (replacing an unconfirmed one); undefined when 2FA is already on. */
  async beginSetup(accountId: number): Promise<string | undefined> {
    if (await this.isEnabled(accountId)) return undefined;
    const secret = base32Encode(randomBytes(SECRET_BYTES));
    const now = this.clock.now();
    await this.storage.transaction(async (tx) => {
      await this.db(tx)
        .deleteFrom('panel_totp')
        .where('account_id', '=', accountId)
        .where('enabled_at', 'is', null)
        .execute();
      await this.db(tx)
        .insertInto('panel_totp')
        .values({ account_id: accountId, secret, enabled_at: null, last_step: null, created_at: now })
        .execute();
    });
    return secret;
  }

  /** Turns 2FA on when `code` matches the pending secret; accepted with the recovery codes (shown once). */
  confirmSetup(accountId: number, code: string, by: Actor): Promise<CodeCheck<string[]>> {
    return this.limit.check(accountId, 'enable', by, () => this.enableWith(accountId, code, by));
  }

  private enableWith(accountId: number, code: string, by: Actor): Promise<string[] | undefined> {
    const now = this.clock.now();
    return this.storage.transaction(async (tx) => {
      const row = await this.db(tx)
        .selectFrom('panel_totp')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('enabled_at', 'is', null)
        .executeTakeFirst();
      if (!row) return undefined;
      const step = matchTotp(secretBytes(row.secret), code.trim(), now);
      if (step === undefined) return undefined;
      const enabled = await this.db(tx)
        .updateTable('panel_totp')
        .set({ enabled_at: now, last_step: step })
        .where('account_id', '=', accountId)
        .where('enabled_at', 'is', null)
        .executeTakeFirst();
      if (Number(enabled.numUpdatedRows) !== 1) return undefined;
      const codes = await this.replaceRecoveryCodes(tx, accountId, now);
      await tx.audit.append({ accountId, ...by, action: 'panel.2fa_enabled', now });
      return codes;
    });
  }

  /** Turns 2FA off, given a current code or a recovery code; accepted with the kind used. */
  async disable(accountId: number, code: string, by: Actor): Promise<CodeCheck<SecondFactorUsed>> {
    const checked = await this.limit.check(accountId, 'disable', by, () =>
      this.spendCode(accountId, code, 'any'),
    );
    if (checked.outcome !== 'accepted') return checked;
    const now = this.clock.now();
    await this.storage.transaction(async (tx) => {
      await this.db(tx).deleteFrom('panel_totp').where('account_id', '=', accountId).execute();
      await this.db(tx).deleteFrom('panel_recovery_codes').where('account_id', '=', accountId).execute();
      await tx.audit.append({
        accountId,
        ...by,
        action: 'panel.2fa_disabled',
        details: { with: checked.value },
        now,
      });
    });
    return checked;
  }

  /** New recovery codes (the old ones stop working), given a current app code (not a recovery code). */
  async regenerateRecoveryCodes(accountId: number, code: string, by: Actor): Promise<CodeCheck<string[]>> {
    const checked = await this.limit.check(accountId, 'recovery_codes', by, () =>
      this.spendCode(accountId, code, 'totp'),
    );
    if (checked.outcome !== 'accepted') return checked;
    const now = this.clock.now();
    const codes = await this.storage.transaction(async (tx) => {
      const fresh = await this.replaceRecoveryCodes(tx, accountId, now);
      await tx.audit.append({ accountId, ...by, action: 'panel.recovery_codes_regenerated', now });
      return fresh;
    });
    return { outcome: 'accepted', value: codes };
  }

  /** The code step of signing in: a current code or a recovery code, within the account's limit. */
  verifySignInCode(accountId: number, code: string, by: Actor): Promise<CodeCheck<SecondFactorUsed>> {
    return this.limit.check(accountId, 'sign_in', by, () => this.spendCode(accountId, code, 'any'));
  }

  private async replaceRecoveryCodes(tx: Storage, accountId: number, now: number): Promise<string[]> {
    const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
    await this.db(tx).deleteFrom('panel_recovery_codes').where('account_id', '=', accountId).execute();
    await this.db(tx)
      .insertInto('panel_recovery_codes')
      .values(
        codes.map((code) => ({
          code_hash: hashRecovery(code),
          account_id: accountId,
          used_at: null,
          created_at: now,
        })),
      )
      .execute();
    return codes;
  }

  /**
   * Checks a code: a TOTP code of a step after the last one accepted, or (`kinds` 'any') an unused
   * recovery code. Either is spent by this call (a replayed code fails). Which kind matched, or
   * undefined. Only through `limit.check`: a code is never checked outside the account's limit.
   */
  private async spendCode(
    accountId: number,
    code: string,
    kinds: 'totp' | 'any',
  ): Promise<SecondFactorUsed | undefined> {
    const text = code.trim();
    if (text.length === 0 || text.length > 32) return undefined;
    const row = await this.db()
      .selectFrom('panel_totp')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('enabled_at', 'is not', null)
      .executeTakeFirst();
    if (!row) return undefined;
    if (/^\d{6}$/.test(text.replace(/\s/g, ''))) {
      const step = matchTotp(secretBytes(row.secret), text.replace(/\s/g, ''), this.clock.now());
      if (step === undefined || (row.last_step !== null && step <= Number(row.last_step))) return undefined;
      const taken = await this.db()
        .updateTable('panel_totp')
        .set({ last_step: step })
        .where('account_id', '=', accountId)
        .where((eb) => eb.or([eb('last_step', 'is', null), eb('last_step', '<', step)]))
        .executeTakeFirst();
      return Number(taken.numUpdatedRows) === 1 ? 'totp' : undefined;
    }
    if (kinds === 'totp') return undefined;
    const spent = await this.db()
      .updateTable('panel_recovery_codes')
      .set({ used_at: this.clock.now() })
      .where('code_hash', '=', hashRecovery(text))
      .where('account_id', '=', accountId)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(spent.numUpdatedRows) === 1 ? 'recovery_code' : undefined;
  }
}

/** Written by beginSetup from random bytes, so always valid base32. */
function secretBytes(secret: string): Buffer {
  return base32Decode(secret) ?? Buffer.alloc(0);
}
