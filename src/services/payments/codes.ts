// Codes (vouchers) for resellers: the operator creates them, a key holder redeems one. A code is
// shown once and stored as its SHA-256 (80 random bits make a guess hopeless, and attempts are
// rate-limited per key); redemption and its `redeem` ledger entry are one transaction, guarded so
// that a code is redeemed once whatever the race.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { MAX_MICRO, microToRub, rubToMicro } from '../../domain/billing/money.js';
import { AppError } from '../../domain/errors.js';
import type { CodeRow } from '../../storage/repositories/topups.js';
import type { Storage } from '../../storage/storage.js';
import type { Clock } from '../clock.js';
import type { RateLimiter } from '../rate-limit.js';

export const MAX_CODES_PER_REQUEST = 1000;
/** Redemption attempts per key per minute, right or wrong. */
export const REDEEM_ATTEMPTS_PER_MIN = 10;
/** Crockford's base32: no I, L, O or U to misread. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** GG-XXXX-XXXX-XXXX-XXXX: 16 characters of 5 bits. */
function newCode(): string {
  const bytes = randomBytes(16);
  let chars = '';
  for (let i = 0; i < 16; i++) chars += ALPHABET[bytes[i] & 31];
  return `GG-${chars.match(/.{4}/g)?.join('-')}`;
}

/** The code as typed (any case, spaces or dashes, O for 0, I or L for 1) in its canonical form. */
export function normalizeCode(text: string): string {
  const body = text
    .trim()
    .toUpperCase()
    .replace(/^GG[-\s]*/, '')
    .replace(/[-\s]/g, '')
    .replace(/O/g, '0')
    .replace(/[IL]/g, '1');
  return `GG-${body}`;
}

export function hashCode(text: string): string {
  return createHash('sha256').update(normalizeCode(text)).digest('hex');
}

function expiryOf(value: unknown, now: number): number | null {
  if (value === undefined || value === null || value === '') return null;
  const ms =
    typeof value === 'number' && Number.isInteger(value)
      ? value * 1000
      : typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value)
        ? Date.parse(value)
        : Number.NaN;
  if (!Number.isFinite(ms) || ms <= now)
    throw new AppError(
      'invalid_parameter',
      'expires_at must be a future time: an ISO 8601 date or Unix seconds',
      'expires_at',
    );
  return ms;
}

export class CodeService {
  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
    private readonly limiter: RateLimiter,
  ) {}

  /** POST /admin/codes: the codes in clear, this once. */
  async create(body: { amount_rub?: unknown; count?: unknown; expires_at?: unknown }): Promise<string[]> {
    let amount: number;
    try {
      amount = rubToMicro(body.amount_rub, 'amount_rub');
    } catch {
      amount = Number.NaN;
    }
    if (!Number.isSafeInteger(amount) || amount <= 0 || amount > MAX_MICRO || amount % 10_000 !== 0)
      throw new AppError(
        'invalid_amount',
        'amount_rub must be a positive number of rubles with at most 2 decimals',
        'amount_rub',
      );
    const count = body.count === undefined ? 1 : body.count;
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > MAX_CODES_PER_REQUEST)
      throw new AppError(
        'invalid_parameter',
        `count must be an integer from 1 to ${MAX_CODES_PER_REQUEST}`,
        'count',
      );
    const now = this.clock.now();
    const expiresAt = expiryOf(body.expires_at, now);
    const codes = Array.from({ length: count }, newCode);
    const rows: CodeRow[] = codes.map((code) => ({
      id: `cd_${randomUUID().replace(/-/g, '')}`,
      code_hash: hashCode(code),
      amount,
      expires_at: expiresAt,
      created_at: now,
      redeemed_at: null,
      redeemed_key_id: null,
    }));
    await this.storage.transaction((tx) => tx.topups.insertCodes(rows));
    return codes;
  }

  /** POST /me/redeem. */
  async redeem(
    owner: { keyId: number; accountId: number },
    code: unknown,
  ): Promise<{ amount_rub: number; key_balance: number }> {
    const decision = await this.limiter.consume(`redeem:key:${owner.keyId}`, REDEEM_ATTEMPTS_PER_MIN);
    if (!decision.allowed)
      throw new AppError('rate_limited', 'Too many code attempts: wait a minute and try again', null, {
        headers: { 'Retry-After': String(decision.resetSeconds) },
      });
    if (typeof code !== 'string' || code.trim() === '' || code.length > 64)
      throw new AppError('missing_parameter', 'code is required', 'code');
    const row = await this.storage.topups.codeByHash(hashCode(code));
    if (!row) throw new AppError('code_not_found', undefined, 'code');
    const now = this.clock.now();
    const balance = await this.storage.transaction(async (tx) => {
      if (!(await tx.topups.redeemCode(row.id, owner.keyId, now)))
        throw new AppError('code_unavailable', undefined, 'code');
      const ref = { keyId: owner.keyId, accountId: owner.accountId, now };
      const after = await tx.ledger.moveBalance(ref, 'redeem', Number(row.amount), row.id, 'code redeemed');
      if (after === undefined) throw new AppError('invalid_api_key');
      return after;
    });
    return { amount_rub: microToRub(Number(row.amount)), key_balance: microToRub(balance) };
  }
}
