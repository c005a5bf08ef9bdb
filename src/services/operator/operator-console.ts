// What the operator does in the console, each change written to the operator audit log with its
// state before and after. Built on the same use cases as the admin API (AccountsService, the
// catalog, maintenance, webhook redelivery), so the rules and the account's own audit entries are
// the same; this adds the console's stricter input (a required note, no zero coefficient) and the
// operator's record. Never returns a webhook secret; a key's full value only from createKey.
import { coefficientToPpm, rubToMicro } from '../../domain/billing/money.js';
import type { CatalogModel } from '../../domain/catalog/model.js';
import { AppError } from '../../domain/errors.js';
import { hashApiKey, KEY_PREFIX } from '../../domain/keys/api-key.js';
import { presentKeyLimits } from '../../domain/keys/limits.js';
import type { TaskProviderRegistry } from '../../providers/task-registry.js';
import type { AccountRow } from '../../storage/repositories/accounts.js';
import type { ApiKeyRow } from '../../storage/repositories/keys.js';
import type { Storage } from '../../storage/storage.js';
import type { AccountsService } from '../accounts.js';
import { parseMessagingId } from '../accounts.js';
import type { CatalogService } from '../catalog.js';
import type { Clock } from '../clock.js';
import type { MaintenanceService } from '../maintenance.js';
import type { PanelSessions } from '../panel/panel-sessions.js';
import { checkProviders, type ProviderCheckRow } from '../providers-check.js';
import type { WebhookDeliveryService } from '../webhooks/delivery.js';
import { type OperatorActor, recordOperatorAction } from './operator-audit.js';

export interface KeyForm {
  name?: string;
  /** Comma- or space-separated model ids; empty: every model. */
  allowedModels?: string;
  /** Comma-, space- or newline-separated CIDRs or addresses; empty: any address. */
  allowedIpCidrs?: string;
  /** Empty: the default limit. */
  rateLimitPerMin?: string;
}

export interface ModelForm {
  priceRub: string;
  /** Text models only. */
  priceOutputRub?: string;
  active: boolean;
  visible: boolean;
}

const NOTE_MAX = 500;

function requiredNote(note: string | undefined): string {
  const text = (note ?? '').trim();
  if (text === '')
    throw new AppError('invalid_parameter', 'A note is required: say why the balance changes', 'note');
  if (text.length > NOTE_MAX)
    throw new AppError('invalid_parameter', `The note may have at most ${NOTE_MAX} characters`, 'note');
  return text;
}

const list = (text: string | undefined) =>
  (text ?? '')
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);

/** A price typed in rubles: empty means no price (null); below zero is refused. */
function priceOf(text: string | undefined, param: string): number | null {
  const value = (text ?? '').trim();
  if (value === '') return null;
  const micro = rubToMicro(value, param);
  if (micro < 0) throw new AppError('invalid_parameter', `${param} must not be below zero`, param);
  return micro;
}

/** A key as the console shows it: the masked value and its restrictions, never the secret. */
export function keySummary(key: ApiKeyRow) {
  return {
    id: key.id,
    name: key.name,
    prefix: key.key_prefix,
    last4: key.key_last4,
    balance: Number(key.balance),
    held: Number(key.held),
    allowed_models: key.allowed_models ? (JSON.parse(key.allowed_models) as string[]) : null,
    allowed_ip_cidrs: key.allowed_ip_cidrs ? (JSON.parse(key.allowed_ip_cidrs) as string[]) : null,
    rate_limit_per_min: key.rate_limit_per_min,
  };
}

const modelState = (m: CatalogModel) => ({
  price_micro: m.priceMicro,
  price_output_micro: m.priceOutputMicro,
  active: m.active,
  visible: m.visible,
});

export class OperatorConsole {
  constructor(
    private readonly deps: {
      storage: Storage;
      clock: Clock;
      accounts: AccountsService;
      catalog: CatalogService;
      maintenance: MaintenanceService;
      webhooks: WebhookDeliveryService;
      panelSessions: PanelSessions;
      taskProviders: TaskProviderRegistry;
      publicUrl: string;
    },
  ) {}

  private audit(by: OperatorActor, action: string, target: string, before?: unknown, after?: unknown) {
    return recordOperatorAction(this.deps, by, action, target, before, after);
  }

  // ---- accounts -------------------------------------------------------------------------------

  /**
   * A messaging id (digits) or a key as shown (sk_live_abcd, sk_live_abcd…wxyz); an unknown
   * messaging id is an error the page shows, a prefix without a match an empty list.
   */
  async findAccounts(query: string): Promise<AccountRow[]> {
    const text = query.trim();
    if (text === '') return this.deps.storage.operator.recentAccounts(20);
    if (/^\d+$/.test(text)) {
      const account = await this.deps.storage.accounts.byMessagingId(parseMessagingId(text));
      if (!account) throw new AppError('not_found', `No account has the messaging id ${text}`, 'q');
      return [account];
    }
    const masked = /^([A-Za-z0-9_]+)(?:…|\.\.\.)([A-Za-z0-9]{4})$/.exec(text);
    const prefix = masked ? masked[1] : text;
    if (!prefix.startsWith(KEY_PREFIX.slice(0, 3)) || !/^[A-Za-z0-9_]+$/.test(prefix))
      throw new AppError(
        'invalid_parameter',
        'Search by a messaging id (digits) or a key prefix (sk_live_…)',
        'q',
      );
    // A full key typed in is matched by its shown prefix only: the console never handles secrets.
    return this.deps.storage.operator.accountsByKeyPrefix(
      prefix.slice(0, KEY_PREFIX.length + 4),
      masked?.[2],
    );
  }

  async account(messagingId: string | number) {
    const account = await this.deps.accounts.accountByMessagingId(messagingId);
    const keys = await this.deps.accounts.keysOf(account.id);
    return {
      messaging_id: Number(account.messaging_id),
      coefficient_ppm: Number(account.coefficient_ppm),
      created_at: Number(account.created_at),
      low_balance: account.low_balance === null ? null : Number(account.low_balance),
      // The owner's limits (expiry, spend cap and this period's spend), shown beside the restrictions.
      keys: keys.map((key) => ({ ...keySummary(key), limits: presentKeyLimits(key, this.deps.clock.now()) })),
    };
  }

  async createAccount(messagingId: string, coefficient: string, by: OperatorActor) {
    const account = await this.deps.accounts.createAccount(
      { messaging_id: messagingId, coefficient: coefficient.trim() === '' ? undefined : coefficient.trim() },
      by,
    );
    await this.audit(by, 'account.created', `account:${account.messaging_id}`, null, {
      messaging_id: Number(account.messaging_id),
      coefficient_ppm: Number(account.coefficient_ppm),
    });
    return account;
  }

  async setCoefficient(messagingId: string, coefficient: string, by: OperatorActor) {
    const ppm = coefficientToPpm(coefficient.trim());
    const account = await this.deps.accounts.accountByMessagingId(messagingId);
    // As PATCH /admin/accounts does: the account's keys are evicted from every process's auth cache,
    // so the new coefficient prices the next request, and the account's own audit log records it.
    await this.deps.accounts.updateAccount(account.id, { coefficient: coefficient.trim() }, by);
    await this.audit(
      by,
      'account.coefficient_changed',
      `account:${account.messaging_id}`,
      { coefficient_ppm: Number(account.coefficient_ppm) },
      { coefficient_ppm: ppm },
    );
  }

  /** A new key of the account: its full value is returned this once and never stored. */
  async createKey(messagingId: string, form: KeyForm, by: OperatorActor) {
    const account = await this.deps.accounts.accountByMessagingId(messagingId);
    const models = list(form.allowedModels);
    const cidrs = list(form.allowedIpCidrs);
    const rate = (form.rateLimitPerMin ?? '').trim();
    const { key, secret } = await this.deps.accounts.createKey(
      account.id,
      {
        name: form.name?.trim() ? form.name.trim() : undefined,
        allowed_models: models.length ? models : undefined,
        allowed_ip_cidrs: cidrs.length ? cidrs : undefined,
        rate_limit_per_min: rate === '' ? undefined : Number(rate),
      },
      by,
    );
    await this.audit(by, 'key.created', `key:${key.id}`, null, keySummary(key));
    return { key: keySummary(key), secret };
  }

  async updateKey(keyId: number, form: KeyForm, by: OperatorActor) {
    const before = await this.keyOrFail(keyId);
    const models = list(form.allowedModels);
    const cidrs = list(form.allowedIpCidrs);
    const rate = (form.rateLimitPerMin ?? '').trim();
    const key = await this.deps.accounts.updateKeyRestrictions(
      keyId,
      {
        allowed_models: models.length ? models : null,
        allowed_ip_cidrs: cidrs.length ? cidrs : null,
        rate_limit_per_min: rate === '' ? null : Number(rate),
      },
      by,
    );
    await this.audit(by, 'key.restrictions_changed', `key:${keyId}`, keySummary(before), keySummary(key));
    return key;
  }

  async deleteKey(keyId: number, by: OperatorActor) {
    const before = await this.keyOrFail(keyId);
    await this.deps.accounts.deleteKey(keyId, by);
    await this.audit(by, 'key.deleted', `key:${keyId}`, keySummary(before), null);
  }

  /** A credit (topup, amount > 0) or a correction of either sign (adjust); both need a note. */
  async moveMoney(
    kind: 'topup' | 'adjust',
    keyId: number,
    amountRub: string,
    note: string | undefined,
    by: OperatorActor,
  ): Promise<number> {
    const text = requiredNote(note);
    const before = await this.keyOrFail(keyId);
    const balance =
      kind === 'topup'
        ? await this.deps.accounts.topup(keyId, amountRub.trim(), text, by)
        : await this.deps.accounts.adjust(keyId, amountRub.trim(), text, by);
    await this.audit(
      by,
      kind === 'topup' ? 'key.topup' : 'key.adjusted',
      `key:${keyId}`,
      { balance: Number(before.balance) },
      { balance, amount_micro: balance - Number(before.balance), note: text },
    );
    return balance;
  }

  /** A one-time panel sign-in link for the account's owner (support), valid 15 minutes. */
  async panelLink(messagingId: string, by: OperatorActor): Promise<string> {
    const account = await this.deps.accounts.accountByMessagingId(messagingId);
    const link = await this.deps.panelSessions.createLoginLink(account.id, by);
    await this.audit(by, 'account.panel_link_created', `account:${account.messaging_id}`, null, {
      expires_at: new Date(link.expiresAt).toISOString(),
    });
    return `${this.deps.publicUrl}/panel/login?token=${link.token}`;
  }

  /** Whether `secret` is the full value of this account's key `keyId` (the page that shows it once). */
  async isSecretOf(messagingId: number, keyId: number, secret: string): Promise<boolean> {
    const key = await this.deps.storage.keys.byIdForOperator(keyId);
    if (!key) return false;
    const account = await this.deps.storage.accounts.byId(key.account_id);
    return Number(account?.messaging_id) === messagingId && hashApiKey(secret) === key.key_hash;
  }

  private async keyOrFail(keyId: number): Promise<ApiKeyRow> {
    const key = await this.deps.storage.keys.byIdForOperator(keyId);
    if (!key || key.deleted_at !== null) throw new AppError('not_found', 'Key not found');
    return key;
  }

  // ---- models ---------------------------------------------------------------------------------

  models(): Promise<CatalogModel[]> {
    return this.deps.catalog.all();
  }

  async updateModel(id: string, form: ModelForm, by: OperatorActor): Promise<CatalogModel> {
    const model = await this.deps.catalog.get(id);
    if (!model) throw new AppError('not_found', `Model ${id} not found`);
    const price = priceOf(form.priceRub, 'price');
    const output =
      model.kind === 'text' ? priceOf(form.priceOutputRub, 'output price') : model.priceOutputMicro;
    const updated = await this.deps.catalog.upsert({
      ...model,
      priceMicro: price,
      priceOutputMicro: output,
      active: form.active,
      visible: form.visible,
      updatedAt: this.deps.clock.now(),
    });
    await this.audit(by, 'model.updated', `model:${id}`, modelState(model), modelState(updated));
    return updated;
  }

  // ---- maintenance, webhooks, tasks, providers -------------------------------------------------

  maintenanceOn(): Promise<boolean> {
    return this.deps.maintenance.isEnabled();
  }

  async setMaintenance(enabled: boolean, by: OperatorActor): Promise<void> {
    const before = await this.deps.maintenance.isEnabled();
    await this.deps.maintenance.set(enabled);
    await this.deps.storage.audit.append({
      accountId: null,
      ...by,
      action: enabled ? 'maintenance.on' : 'maintenance.off',
      now: this.deps.clock.now(),
    });
    await this.audit(
      by,
      enabled ? 'maintenance.on' : 'maintenance.off',
      'maintenance',
      { enabled: before },
      { enabled },
    );
  }

  undeliveredWebhooks(limit = 100) {
    return this.deps.storage.webhooks.listByStatus('undelivered', limit);
  }

  async redeliver(deliveryId: string, by: OperatorActor) {
    const before = await this.deps.storage.webhooks.byId(deliveryId);
    if (!before) throw new AppError('not_found', 'Webhook delivery not found');
    const after = await this.deps.webhooks.redeliver(deliveryId, by);
    await this.audit(
      by,
      'webhook.redelivered',
      `webhook:${deliveryId}`,
      { status: before.status, attempts: before.attempts },
      { status: after.status, attempts: after.attempts },
    );
    return after;
  }

  /** A task by id across accounts: the row, its ledger entries, its webhook deliveries, its owner. */
  async task(id: string) {
    const taskId = id.trim().toLowerCase();
    if (!/^[0-9a-f-]{36}$/.test(taskId))
      throw new AppError('invalid_parameter', 'A task id looks like 0192f…-…', 'id');
    const task = await this.deps.storage.operator.task(taskId);
    if (!task) throw new AppError('task_not_found', `No task has the id ${taskId}`);
    const [ledger, deliveries, account] = await Promise.all([
      this.deps.storage.ledger.entriesForTask(task.id),
      this.deps.storage.operator.deliveriesOfTask(task.id),
      this.deps.storage.accounts.byId(task.account_id),
    ]);
    return { task, ledger, deliveries, messagingId: account ? Number(account.messaging_id) : null };
  }

  /** `providers check` from the console: every configured upstream asked once, audited. */
  async checkProviders(by: OperatorActor): Promise<ProviderCheckRow[]> {
    const rows = await checkProviders(this.deps.taskProviders);
    await this.audit(by, 'providers.checked', 'providers', null, rows);
    return rows;
  }

  auditLog(limit: number, beforeId?: number) {
    return this.deps.storage.operator.audit(limit, beforeId);
  }
}
