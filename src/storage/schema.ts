// Table types shared by both engines. Times are epoch milliseconds; money is integer micro-rubles;
// JSON columns are text; booleans are 0/1 integers so the same queries run on SQLite and PostgreSQL.
import type { Generated } from 'kysely';

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
}

export type LedgerKind = 'topup' | 'hold' | 'capture' | 'release' | 'adjust' | 'transfer';

export interface LedgerEntriesTable {
  id: Generated<number>;
  key_id: number;
  account_id: number;
  /** The task or chat request that caused the movement; null for top-ups and adjustments. */
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
  margin_daily: MarginDailyTable;
  console_tokens: ConsoleTokensTable;
  operator_audit: OperatorAuditTable;
}
