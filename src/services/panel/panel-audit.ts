// The owner's audit log as the panel shows it: the last 90 days of one account, filtered by action,
// key and date range, paged newest first by id, with details in words (rubles, key names).
import { microToRub } from '../../domain/billing/money.js';
import { ownEntry } from '../../domain/own-entry.js';
import type { AuditRow } from '../../storage/repositories/audit.js';
import type { Storage } from '../../storage/storage.js';
import type { Clock } from '../clock.js';

export const AUDIT_RETENTION_MS = 90 * 24 * 3600 * 1000;

export interface AuditFilter {
  action?: string;
  keyId?: number;
  /** Inclusive lower bound (ms). */
  from?: number;
  /** Exclusive upper bound (ms). */
  to?: number;
}

export interface AuditPage {
  rows: AuditRow[];
  /** Pass as `before` for the next (older) page; undefined on the last page. */
  nextBefore?: number;
}

const ACTION_LABELS: Record<string, string> = {
  'account.created': 'Account created',
  'key.created': 'Key created',
  'key.renamed': 'Key renamed',
  'key.deleted': 'Key deleted',
  'key.restrictions_changed': 'Key restrictions changed',
  'account.updated': 'Account settings changed',
  'key.topup': 'Top-up',
  'key.adjusted': 'Balance corrected',
  'key.transfer': 'Transfer between keys',
  'webhook_secret.rotated': 'Webhook secret rotated',
  'webhook_secret.viewed': 'Webhook secret viewed',
  'webhook.redelivered': 'Webhook redelivered',
  'login_link.created': 'Sign-in link created',
  'panel.login': 'Signed in',
  'panel.login_failed': 'Sign-in failed',
  'panel.2fa_enabled': 'Two-factor authentication on',
  'panel.2fa_disabled': 'Two-factor authentication off',
  'panel.recovery_codes_regenerated': 'New recovery codes',
  'panel.2fa_code_accepted': 'Two-factor code accepted',
  'panel.2fa_code_rejected': 'Wrong two-factor code',
  'panel.2fa_locked': 'Two-factor code checks locked',
  'panel.signed_out_everywhere': 'Signed out everywhere',
};

export function actionLabel(action: string): string {
  return ownEntry(ACTION_LABELS, action) ?? action;
}

const FIELD_LABELS: Record<string, string> = {
  allowed_models: 'models',
  allowed_ip_cidrs: 'IP ranges',
  rate_limit_per_min: 'requests per minute',
  expires_at: 'expires',
  spend_limit_rub: 'spend limit, RUB',
  spend_limit_period: 'counted per',
  low_balance_rub: 'low-balance notice below, RUB',
  messaging_id: 'account',
  second_factor: 'second factor',
  delivery_id: 'delivery',
  task_id: 'task',
  step: 'step',
  attempts_left: 'attempts left',
  until: 'locked until',
};

/** "key_id" → a key's name; "*_micro" → rubles; lists joined; null → "none". */
export function describeDetails(details: string | null, keyNames: Map<number, string>): string {
  if (!details) return '';
  let value: unknown;
  try {
    value = JSON.parse(details);
  } catch {
    return details;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return String(value);
  const parts: string[] = [];
  for (const [name, raw] of Object.entries(value as Record<string, unknown>)) {
    if (name.endsWith('key_id') && typeof raw === 'number') {
      const label = name === 'key_id' ? 'key' : `${name.replace(/_key_id$/, '')} key`;
      parts.push(`${label} ${keyNames.get(raw) ?? `#${raw}`}`);
    } else if (name.endsWith('_micro') && typeof raw === 'number') {
      const rub = microToRub(raw);
      parts.push(`${name.replace(/_micro$/, '').replace(/_/g, ' ')} ${rub.toFixed(2)} ₽`);
    } else if (name === 'prefix') {
      // The key's public prefix: the name above says more.
    } else {
      const label = ownEntry(FIELD_LABELS, name) ?? name.replace(/_/g, ' ');
      const text = raw === null ? 'none' : Array.isArray(raw) ? raw.join(', ') || 'none' : String(raw);
      parts.push(`${label}: ${text}`);
    }
  }
  return parts.join('; ');
}

export class PanelAudit {
  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
  ) {}

  private query(accountId: number, filter: AuditFilter) {
    const since = Math.max(this.clock.now() - AUDIT_RETENTION_MS, filter.from ?? 0);
    let query = this.storage.db
      .selectFrom('audit_log')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('created_at', '>=', since);
    if (filter.to !== undefined) query = query.where('created_at', '<', filter.to);
    if (filter.action) query = query.where('action', '=', filter.action);
    if (filter.keyId !== undefined) {
      // Details are JSON written by JSON.stringify (no spaces): key_id, from_key_id, to_key_id…
      const id = filter.keyId;
      query = query.where((eb) =>
        eb.or([eb('details', 'like', `%key_id":${id},%`), eb('details', 'like', `%key_id":${id}}%`)]),
      );
    }
    return query;
  }

  async page(accountId: number, filter: AuditFilter, limit: number, before?: number): Promise<AuditPage> {
    let query = this.query(accountId, filter);
    if (before !== undefined) query = query.where('id', '<', before);
    const rows = await query
      .orderBy('id', 'desc')
      .limit(limit + 1)
      .execute();
    const more = rows.length > limit;
    const shown = rows.slice(0, limit);
    return { rows: shown, nextBefore: more ? Number(shown[shown.length - 1].id) : undefined };
  }

  /** Every matching row, newest first, up to `cap` (the CSV export). */
  all(accountId: number, filter: AuditFilter, cap: number): Promise<AuditRow[]> {
    return this.query(accountId, filter).orderBy('id', 'desc').limit(cap).execute();
  }

  /** The actions that occur in the account's log: the filter's choices. */
  async actions(accountId: number): Promise<string[]> {
    const rows = await this.storage.db
      .selectFrom('audit_log')
      .select('action')
      .distinct()
      .where('account_id', '=', accountId)
      .where('created_at', '>=', this.clock.now() - AUDIT_RETENTION_MS)
      .execute();
    return rows.map((r) => r.action).sort();
  }

  /** Names of all the account's keys, deleted ones too (the log outlives them). */
  async keyNames(accountId: number): Promise<Map<number, string>> {
    const rows = await this.storage.db
      .selectFrom('api_keys')
      .select(['id', 'name', 'deleted_at', 'key_last4'])
      .where('account_id', '=', accountId)
      .orderBy('id')
      .execute();
    return new Map(
      rows.map((r) => [
        Number(r.id),
        `${r.name ? `“${r.name}”` : `#${r.id}`} (…${r.key_last4})${r.deleted_at ? ' (deleted)' : ''}`,
      ]),
    );
  }
}
