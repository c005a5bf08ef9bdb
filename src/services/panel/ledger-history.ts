// A key's ledger history for its owner: filters (kind, date range), pages of 50 newest first, and a
// CSV export of everything the filters match. Amounts leave as exact decimal text (no float).
import { isLedgerKind, LEDGER_KINDS } from '../../domain/billing/ledger-kinds.js';
import { AppError } from '../../domain/errors.js';
import type { LedgerEntryRow } from '../../storage/ledger/ledger.js';
import type { LedgerKind } from '../../storage/schema.js';
import type { Storage } from '../../storage/storage.js';

export { LEDGER_KINDS };
export const HISTORY_PAGE = 50;
/** A CSV export stops here; narrow the dates for more. */
export const CSV_MAX_ROWS = 100_000;
const DAY_MS = 86_400_000;

export interface HistoryFilters {
  kinds: LedgerKind[];
  /** YYYY-MM-DD, both included; '' when not set. */
  from: string;
  to: string;
}

export interface HistoryQueryText {
  kind?: string | string[];
  from?: string;
  to?: string;
  before?: string;
}

/** A YYYY-MM-DD date as epoch ms at its UTC midnight; a bad date is a 422 naming `param`. */
export function parseDate(value: string, param: string): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const ms = match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : Number.NaN;
  if (!match || Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value)
    throw new AppError('invalid_parameter', `${param} must be a date as YYYY-MM-DD`, param);
  return ms;
}

export function parseHistoryFilters(q: HistoryQueryText): HistoryFilters {
  const given = (Array.isArray(q.kind) ? q.kind : q.kind ? [q.kind] : []).filter((k) => k !== '');
  for (const kind of given)
    if (!isLedgerKind(kind))
      throw new AppError('invalid_parameter', `kind must be one of ${LEDGER_KINDS.join(', ')}`, 'kind');
  const from = q.from ?? '';
  const to = q.to ?? '';
  if (from) parseDate(from, 'from');
  if (to) parseDate(to, 'to');
  if (from && to && from > to) throw new AppError('invalid_parameter', 'from must not be after to', 'from');
  return { kinds: given as LedgerKind[], from, to };
}

/** Micro-rubles as exact decimal rubles: -1500000 → "-1.50", 1234 → "0.001234". */
export function microToDecimal(micro: number): string {
  const sign = micro < 0 ? '-' : '';
  const abs = Math.abs(micro);
  const whole = Math.floor(abs / 1_000_000);
  const fraction = String(abs % 1_000_000)
    .padStart(6, '0')
    .replace(/0{1,4}$/, '');
  return `${sign}${whole}.${fraction.padEnd(2, '0')}`;
}

function csvCell(value: string): string {
  // Quotes always; a leading = + - @ is neutralised so a spreadsheet never runs it as a formula.
  const safe = /^[=+\-@\t\r]/.test(value) && !/^-\d/.test(value) ? `'${value}` : value;
  return `"${safe.replace(/"/g, '""')}"`;
}

export class LedgerHistoryService {
  constructor(private readonly storage: Storage) {}

  private query(accountId: number, keyId: number, filters: HistoryFilters) {
    return {
      accountId,
      keyId,
      kinds: filters.kinds,
      from: filters.from ? parseDate(filters.from, 'from') : undefined,
      to: filters.to ? parseDate(filters.to, 'to') + DAY_MS : undefined,
    };
  }

  /** One page, newest first; `before` is the last entry id of the previous page. */
  async page(
    accountId: number,
    keyId: number,
    filters: HistoryFilters,
    before?: string,
  ): Promise<{ entries: LedgerEntryRow[]; nextBefore: number | null }> {
    let beforeId: number | undefined;
    if (before !== undefined && before !== '') {
      beforeId = /^\d{1,15}$/.test(before) ? Number(before) : Number.NaN;
      if (!Number.isSafeInteger(beforeId) || beforeId <= 0)
        throw new AppError('invalid_parameter', 'before must be a ledger entry id', 'before');
    }
    const rows = await this.storage.keyLedger.history({
      ...this.query(accountId, keyId, filters),
      beforeId,
      limit: HISTORY_PAGE + 1,
    });
    const entries = rows.slice(0, HISTORY_PAGE);
    return {
      entries,
      nextBefore: rows.length > HISTORY_PAGE ? Number(entries[entries.length - 1].id) : null,
    };
  }

  /** Every matching entry (up to CSV_MAX_ROWS) as CSV text, newest first. */
  async csv(accountId: number, keyId: number, filters: HistoryFilters): Promise<string> {
    const rows = await this.storage.keyLedger.history({
      ...this.query(accountId, keyId, filters),
      limit: CSV_MAX_ROWS,
    });
    const header = 'id,time_utc,key_id,kind,amount_rub,balance_after_rub,held_after_rub,task_id,note';
    const lines = rows.map((r) =>
      [
        String(r.id),
        new Date(Number(r.created_at)).toISOString(),
        String(r.key_id),
        r.kind,
        microToDecimal(Number(r.amount)),
        microToDecimal(Number(r.balance_after)),
        microToDecimal(Number(r.held_after)),
        r.task_id ?? '',
        r.note ?? '',
      ]
        .map(csvCell)
        .join(','),
    );
    return `${[header, ...lines].join('\r\n')}\r\n`;
  }
}
