// Table types shared by both engines. Times are epoch milliseconds; money is integer micro-rubles;
// JSON columns are text; booleans are 0/1 integers so the same queries run on SQLite and PostgreSQL.
import type { ColumnType, Generated, Selectable } from 'kysely';
import type { LedgerKind } from '../domain/billing/ledger-kinds.js';

export interface AccountsTable {
  id: Generated<number>;
  messaging_id: number;
  /** Account coefficient in millionths (1.25 → 1_250_000), so pricing stays integer. */
  coefficient_ppm: number;
  webhook_secret: string;
  /** The previous secret keeps signing during the grace period after a rotation. */
  webhook_secret_previous: string | null;
  webhook_secret_previous_until: number | null;
  created_at: number;
  /** Micro-rubles: a key whose funds fall below this gets its owner a Telegram notice (null: none). */
  low_balance: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface ApiKeysTable {
  id: Generated<number>;
  account_id: number;
  name: string | null;
  key_hash: string;
  key_prefix: string;
  key_last4: string;
  balance: number;
  held: number;
  allowed_models: string | null;
  allowed_ip_cidrs: string | null;
  rate_limit_per_min: number | null;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
  /** Epoch ms after which the key answers 401 key_expired; null: never. */
  expires_at: ColumnType<number | null, number | null | undefined, number | null>;
  /** Micro-rubles the key may hold per period (null: no cap). */
  spend_limit: ColumnType<number | null, number | null | undefined, number | null>;
  spend_limit_period: ColumnType<string | null, string | null | undefined, string | null>;
  /** Held (net of releases) since spend_since; moved by the hold and settlement statements only. */
  spend_in_period: ColumnType<number, number | undefined, number>;
  spend_since: ColumnType<number, number | undefined, number>;
  /** The account's low_balance, copied so the settlement statements need not read the account. */
  low_balance: ColumnType<number | null, number | null | undefined, number | null>;
}

export type BalanceNoticeStatus = 'pending' | 'sent' | 'refused' | 'failed';

/** The low-balance notices' outbox (a Telegram message each). */
export interface BalanceNoticesTable {
  id: string;
  account_id: number;
  key_id: number;
  /** The key's funds (balance + held) right after the movement that crossed. */
  funds: number;
  threshold: number;
  status: ColumnType<BalanceNoticeStatus, BalanceNoticeStatus | undefined, BalanceNoticeStatus>;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: number;
  lease_expires_at: ColumnType<number | null, number | null | undefined, number | null>;
  last_error: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: number;
  sent_at: ColumnType<number | null, number | null | undefined, number | null>;
}

export type { LedgerKind };

export interface LedgerEntriesTable {
  id: Generated<number>;
  key_id: number;
  account_id: number;
  /** What caused the movement (a task, chat request, top-up, refund or code: ledger-kinds.ts says
   *  which per kind); null for the operator's top-ups and adjustments. */
  task_id: string | null;
  kind: LedgerKind;
  /** Magnitude of the movement (adjust and transfer may be negative: a transfer out is). */
  amount: number;
  balance_after: number;
  held_after: number;
  note: string | null;
  created_at: number;
}

export type TaskStatus = 'pending' | 'processing' | 'completed' | 'failed';

export interface TasksTable {
  id: string;
  account_id: number;
  key_id: number;
  model_id: string;
  /** The catalog entry the price came from (an internal variant when one applied). */
  billing_model_id: string;
  kind: string;
  status: TaskStatus;
  params: string;
  hold_amount: number;
  /** The pricing frozen at creation (JSON TaskPricing), so settlement never depends on later price changes. */
  pricing: string | null;
  cost: number | null;
  result: string | null;
  error: string | null;
  webhook_url: string | null;
  provider: string;
  provider_job_id: string | null;
  provider_state: string | null;
  attempts: number;
  requeues: number;
  /** pending: when it may be claimed; processing: when it should next be polled. */
  run_at: number;
  lease_owner: string | null;
  lease_expires_at: number | null;
  /** Processing time already spent before a re-queue; queue time does not count toward the timeout. */
  processing_ms: number;
  processing_started_at: number | null;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
}

/** A task as read from the database. */
export type TaskRow = Selectable<TasksTable>;

/**
 * Columns of tasks that the task's own life never reads (TaskRow leaves them out): what the
 * upstream cost the operator, in micro-rubles; null when its route carries no cost.
 */
export interface TaskCostColumns {
  provider_cost: number | null;
}

export interface ModelsTable {
  id: string;
  name: string;
  provider: string;
  kind: string;
  unit: string;
  price_micro: number | null;
  price_output_micro: number | null;
  price_cache_write_micro: number | null;
  price_cache_read_micro: number | null;
  price_web_search_micro: number | null;
  price_web_fetch_micro: number | null;
  active: number;
  visible: number;
  vision: number;
  route: string | null;
  params_schema: string | null;
  billing: string | null;
  sort_order: number;
  updated_at: number;
}

export interface IdempotencyKeysTable {
  id: Generated<number>;
  key_id: number;
  idem_key: string;
  fingerprint: string;
  state: 'in_progress' | 'done';
  response_status: number | null;
  response_body: string | null;
  task_id: string | null;
  created_at: number;
  expires_at: number;
}

export interface WebhookDeliveriesTable {
  /** The Standard Webhooks message id, stable across attempts. */
  id: string;
  task_id: string;
  account_id: number;
  url: string;
  payload: string;
  status: 'pending' | 'delivered' | 'undelivered';
  attempts: number;
  next_attempt_at: number;
  lease_expires_at: number | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  delivered_at: number | null;
}

export interface AuditLogTable {
  id: Generated<number>;
  account_id: number | null;
  actor: string;
  action: string;
  details: string | null;
  ip: string | null;
  created_at: number;
}

export interface SettingsTable {
  key: string;
  value: string;
  updated_at: number;
}

export interface UsageRecordsTable {
  id: string;
  account_id: number;
  key_id: number;
  model_id: string;
  input_tokens: number;
  output_tokens: number;
  cost: number;
  status: string;
  latency_ms: number;
  created_at: number;
  /** Unused since chat holds have their own table (chat_holds.process_id); kept for old rows. */
  process_id: string | null;
}

/** Columns of usage_records that UsageRow leaves out (written by the settlement, read by reports). */
export interface UsageProviderColumns {
  /** The PROVIDERS_FILE provider (or simulator) that served it; null on rows before it was kept. */
  provider: string | null;
  /** What the upstream cost the operator (micro-rubles); null when its route carries no cost. */
  provider_cost: number | null;
}

/** One row per chat request in flight: its open hold, deleted when the hold is settled. */
export interface ChatHoldsTable {
  /** The request's id: its usage row's and its ledger entries' reference. */
  id: string;
  account_id: number;
  key_id: number;
  model_id: string;
  /** Micro-rubles held (the hold entry's amount). */
  amount: number;
  /** The process serving the request, whose lease keeps the hold open (null: no lease). */
  process_id: string | null;
  created_at: number;
}

/** One row per process serving chat: its holds are released once `expires_at` has passed. */
export interface ProcessLeasesTable {
  process_id: string;
  expires_at: number;
  started_at: number;
}

export interface PanelTokensTable {
  token_hash: string;
  account_id: number;
  kind: 'login_link' | 'session';
  expires_at: number;
  used_at: number | null;
  created_at: number;
}

/** One account's use of one model with one key on one sealed UTC day (day = days since the epoch). */
export interface UsageDailyTable {
  account_id: number;
  day: number;
  key_id: number;
  model_id: string;
  requests: number;
  spent: number;
  input_tokens: number;
  output_tokens: number;
}

/** How one key's tasks of one sealed day ended; error_kind '' when the task did not fail. */
export interface TaskOutcomesDailyTable {
  account_id: number;
  day: number;
  key_id: number;
  status: string;
  error_kind: string;
  tasks: number;
}

/** The days whose usage_daily and task_outcomes_daily rows are complete: nothing of them can change. */
export interface UsageDaysSealedTable {
  account_id: number;
  day: number;
  sealed_at: number;
}

export type TopupStatus = 'pending' | 'succeeded' | 'canceled' | 'refunded';

/** A top-up paid through a payment provider (migration 015). */
export interface TopupsTable {
  id: string;
  account_id: number;
  key_id: number;
  method: string;
  /** Micro-rubles credited when paid. */
  amount: number;
  status: TopupStatus;
  provider_payment_id: string | null;
  confirmation_url: string | null;
  email: string | null;
  charge_currency: string;
  charge_minor: number;
  cancel_reason: string | null;
  created_at: number;
  updated_at: number;
  paid_at: number | null;
  refunded_at: number | null;
  check_at: number;
}

export type RefundStatus = 'pending' | 'succeeded' | 'refused';

export interface TopupRefundsTable {
  id: string;
  topup_id: string;
  account_id: number;
  key_id: number;
  amount: number;
  status: RefundStatus;
  provider_refund_id: string | null;
  failure: string | null;
  created_at: number;
  updated_at: number;
}

export interface TopupCodesTable {
  id: string;
  code_hash: string;
  amount: number;
  expires_at: number | null;
  created_at: number;
  redeemed_at: number | null;
  redeemed_key_id: number | null;
}

/** Margin of one model through one provider for one account on one sealed day (micro-rubles). */
export interface MarginDailyTable {
  account_id: number;
  day: number;
  model_id: string;
  /** '' when unknown (chat rows written before the provider was kept). */
  provider: string;
  requests: number;
  revenue: number;
  /** Sum of the known provider costs. */
  cost: number;
  /** Requests whose provider cost is known. */
  costed: number;
}

export interface ConsoleTokensTable {
  token_hash: string;
  kind: 'link' | 'session';
  expires_at: number;
  used_at: number | null;
  created_at: number;
}

/** One change the operator made: who, what, on which object, the state before and after (JSON). */
export interface OperatorAuditTable {
  id: Generated<number>;
  actor: string;
  action: string;
  target: string | null;
  before: string | null;
  after: string | null;
  ip: string | null;
  created_at: number;
}

export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  balance_notices: BalanceNoticesTable;
  ledger_entries: LedgerEntriesTable;
  tasks: TasksTable & Partial<TaskCostColumns>;
  models: ModelsTable;
  idempotency_keys: IdempotencyKeysTable;
  webhook_deliveries: WebhookDeliveriesTable;
  audit_log: AuditLogTable;
  settings: SettingsTable;
  usage_records: UsageRecordsTable & Partial<UsageProviderColumns>;
  chat_holds: ChatHoldsTable;
  usage_daily: UsageDailyTable;
  usage_days_sealed: UsageDaysSealedTable;
  task_outcomes_daily: TaskOutcomesDailyTable;
  panel_tokens: PanelTokensTable;
  process_leases: ProcessLeasesTable;
  topups: TopupsTable;
  topup_refunds: TopupRefundsTable;
  topup_codes: TopupCodesTable;
  margin_daily: MarginDailyTable;
  console_tokens: ConsoleTokensTable;
  operator_audit: OperatorAuditTable;
}
