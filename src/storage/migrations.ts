// Schema migrations for both engines. Each migration is written once; the few type differences
// (auto-increment ids) come from the engine helpers below.
import { type Kysely, type Migration, sql } from 'kysely';
import type { Db, Engine } from './db.js';
import { topupsMigration } from './migration-015-topups.js';

type AnyDb = Kysely<any>;

function idColumn(engine: Engine) {
  return engine === 'postgres' ? ('bigserial' as const) : ('integer' as const);
}

function withId(engine: Engine) {
  return (col: any) => (engine === 'postgres' ? col.primaryKey() : col.primaryKey().autoIncrement());
}

/**
 * An integer key for append-only tables (ledger, audit, idempotency). On SQLite without
 * AUTOINCREMENT: rowids still only grow while the newest row is never deleted, and AUTOINCREMENT
 * would rewrite the sqlite_sequence page in every transaction that appends a row (one more WAL
 * frame, two more write syscalls, per hold and per settlement).
 */
const appendOnlyId = (col: any) => col.primaryKey();

/**
 * SQLite: a table keyed by a text id is stored in the id's B-tree itself (WITHOUT ROWID), instead
 * of a rowid table plus a separate index on the id, so an insert writes one page fewer.
 */
function keyedByText(engine: Engine) {
  return (table: any) => (engine === 'sqlite' ? table.modifyEnd(sql`without rowid`) : table);
}

function migrations(engine: Engine): Record<string, Migration> {
  const id = idColumn(engine);
  const pk = withId(engine);
  const textKeyed = keyedByText(engine);
  return {
    '001_foundation': {
      async up(db: AnyDb) {
        await db.schema
          .createTable('accounts')
          .addColumn('id', id, pk)
          .addColumn('messaging_id', 'bigint', (c) => c.notNull().unique())
          .addColumn('coefficient_ppm', 'bigint', (c) => c.notNull().defaultTo(1_000_000))
          .addColumn('webhook_secret', 'text', (c) => c.notNull())
          .addColumn('webhook_secret_previous', 'text')
          .addColumn('webhook_secret_previous_until', 'bigint')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addCheckConstraint('accounts_coefficient_positive', sql`coefficient_ppm > 0`)
          .execute();

        await db.schema
          .createTable('api_keys')
          .addColumn('id', id, pk)
          .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id'))
          .addColumn('name', 'text')
          .addColumn('key_hash', 'text', (c) => c.notNull().unique())
          .addColumn('key_prefix', 'text', (c) => c.notNull())
          .addColumn('key_last4', 'text', (c) => c.notNull())
          .addColumn('balance', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('held', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('allowed_models', 'text')
          .addColumn('allowed_ip_cidrs', 'text')
          .addColumn('rate_limit_per_min', 'integer')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .addColumn('deleted_at', 'bigint')
          .addCheckConstraint('api_keys_balance_nonneg', sql`balance >= 0`)
          .addCheckConstraint('api_keys_held_nonneg', sql`held >= 0`)
          .execute();
        await db.schema.createIndex('api_keys_account').on('api_keys').column('account_id').execute();

        await db.schema
          .createTable('ledger_entries')
          .addColumn('id', id, appendOnlyId)
          .addColumn('key_id', 'bigint', (c) => c.notNull().references('api_keys.id'))
          .addColumn('account_id', 'bigint', (c) => c.notNull())
          .addColumn('task_id', 'text')
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('amount', 'bigint', (c) => c.notNull())
          .addColumn('balance_after', 'bigint', (c) => c.notNull())
          .addColumn('held_after', 'bigint', (c) => c.notNull())
          .addColumn('note', 'text')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          // One hold, at most one capture and at most one release per task: a double refund is a
          // constraint violation, whatever the race.
          .addUniqueConstraint('ledger_task_kind', ['task_id', 'kind'])
          .addCheckConstraint(
            'ledger_kind_valid',
            sql`kind in ('topup', 'hold', 'capture', 'release', 'adjust')`,
          )
          .addCheckConstraint('ledger_balance_nonneg', sql`balance_after >= 0 and held_after >= 0`)
          .execute();
        await db.schema.createIndex('ledger_key').on('ledger_entries').columns(['key_id', 'id']).execute();

        await db.schema
          .createTable('models')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('provider', 'text', (c) => c.notNull())
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('unit', 'text', (c) => c.notNull())
          .addColumn('price_micro', 'bigint')
          .addColumn('price_output_micro', 'bigint')
          .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
          .addColumn('visible', 'integer', (c) => c.notNull().defaultTo(1))
          .addColumn('vision', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('route', 'text')
          .addColumn('params_schema', 'text')
          .addColumn('billing', 'text')
          .addColumn('sort_order', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .execute();

        await db.schema
          .createTable('tasks')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id'))
          .addColumn('key_id', 'bigint', (c) => c.notNull().references('api_keys.id'))
          .addColumn('model_id', 'text', (c) => c.notNull())
          .addColumn('billing_model_id', 'text', (c) => c.notNull())
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('params', 'text', (c) => c.notNull())
          .addColumn('hold_amount', 'bigint', (c) => c.notNull())
          .addColumn('pricing', 'text')
          .addColumn('cost', 'bigint')
          .addColumn('result', 'text')
          .addColumn('error', 'text')
          .addColumn('webhook_url', 'text')
          .addColumn('provider', 'text', (c) => c.notNull())
          .addColumn('provider_job_id', 'text')
          .addColumn('provider_state', 'text')
          .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('requeues', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('run_at', 'bigint', (c) => c.notNull())
          .addColumn('lease_owner', 'text')
          .addColumn('lease_expires_at', 'bigint')
          .addColumn('processing_ms', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('processing_started_at', 'bigint')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .addColumn('finished_at', 'bigint')
          .addCheckConstraint(
            'tasks_status_valid',
            sql`status in ('pending', 'processing', 'completed', 'failed')`,
          )
          .$call(textKeyed)
          .execute();
        await db.schema.createIndex('tasks_queue').on('tasks').columns(['status', 'run_at']).execute();
        await db.schema
          .createIndex('tasks_account')
          .on('tasks')
          .columns(['account_id', 'created_at'])
          .execute();

        await db.schema
          .createTable('idempotency_keys')
          .addColumn('id', id, appendOnlyId)
          .addColumn('key_id', 'bigint', (c) => c.notNull())
          .addColumn('idem_key', 'text', (c) => c.notNull())
          .addColumn('fingerprint', 'text', (c) => c.notNull())
          .addColumn('state', 'text', (c) => c.notNull())
          .addColumn('response_status', 'integer')
          .addColumn('response_body', 'text')
          .addColumn('task_id', 'text')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('expires_at', 'bigint', (c) => c.notNull())
          .addUniqueConstraint('idempotency_key_scope', ['key_id', 'idem_key'])
          .execute();
        await db.schema
          .createIndex('idempotency_expiry')
          .on('idempotency_keys')
          .column('expires_at')
          .execute();

        await db.schema
          .createTable('webhook_deliveries')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('task_id', 'text', (c) => c.notNull())
          .addColumn('account_id', 'bigint', (c) => c.notNull())
          .addColumn('url', 'text', (c) => c.notNull())
          .addColumn('payload', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
          .addColumn('lease_expires_at', 'bigint')
          .addColumn('last_status_code', 'integer')
          .addColumn('last_error', 'text')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .addColumn('delivered_at', 'bigint')
          .$call(textKeyed)
          .execute();
        await db.schema
          .createIndex('webhook_due')
          .on('webhook_deliveries')
          .columns(['status', 'next_attempt_at'])
          .execute();

        await db.schema
          .createTable('audit_log')
          .addColumn('id', id, appendOnlyId)
          .addColumn('account_id', 'bigint')
          .addColumn('actor', 'text', (c) => c.notNull())
          .addColumn('action', 'text', (c) => c.notNull())
          .addColumn('details', 'text')
          .addColumn('ip', 'text')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex('audit_account')
          .on('audit_log')
          .columns(['account_id', 'created_at'])
          .execute();

        await db.schema
          .createTable('settings')
          .addColumn('key', 'text', (c) => c.primaryKey())
          .addColumn('value', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .execute();

        // One row per chat completion request: what the panel's analytics read.
        await db.schema
          .createTable('usage_records')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('account_id', 'bigint', (c) => c.notNull())
          .addColumn('key_id', 'bigint', (c) => c.notNull())
          .addColumn('model_id', 'text', (c) => c.notNull())
          .addColumn('input_tokens', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('output_tokens', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('cost', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('latency_ms', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .$call(textKeyed)
          .execute();
        await db.schema
          .createIndex('usage_account')
          .on('usage_records')
          .columns(['account_id', 'created_at'])
          .execute();
        // The janitor looks for chat holds abandoned by a crashed process.
        await db.schema
          .createIndex('usage_pending')
          .on('usage_records')
          .column('created_at')
          .where(sql.ref('status'), '=', 'pending')
          .execute();

        // One-time panel sign-in links and panel sessions; only token hashes are stored.
        await db.schema
          .createTable('panel_tokens')
          .addColumn('token_hash', 'text', (c) => c.primaryKey())
          .addColumn('account_id', 'bigint', (c) => c.notNull())
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('expires_at', 'bigint', (c) => c.notNull())
          .addColumn('used_at', 'bigint')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
      },
    },
    '002_provider_jobs': {
      async up(db: AnyDb) {
        // An upstream callback names the provider's job: find its task without a scan.
        await db.schema
          .createIndex('tasks_provider_job')
          .on('tasks')
          .columns(['provider_job_id', 'provider'])
          .where(sql.ref('provider_job_id'), 'is not', null)
          .execute();
      },
    },
    '003_video_list': {
      async up(db: AnyDb) {
        // GET /v1/videos pages through one account's videos by (created_at, id): only video tasks
        // are indexed, so the high-volume image tasks pay nothing for it.
        await db.schema
          .createIndex('tasks_account_videos')
          .on('tasks')
          .columns(['account_id', 'created_at', 'id'])
          .where(sql.ref('kind'), '=', sql.lit('video'))
          .execute();
      },
    },
    '004_chat_hold_leases': {
      async up(db: AnyDb) {
        // An open chat hold names the process serving it; each serving process keeps one lease row
        // alive, and another process releases the holds of a process whose lease ran out. Rows
        // from before this migration have no owner and fall to the 6-hour sweep.
        await db.schema.alterTable('usage_records').addColumn('process_id', 'text').execute();
        await db.schema
          .createTable('process_leases')
          .addColumn('process_id', 'text', (c) => c.primaryKey())
          .addColumn('expires_at', 'bigint', (c) => c.notNull())
          .addColumn('started_at', 'bigint', (c) => c.notNull())
          .$call(textKeyed)
          .execute();
      },
    },
    '007_worker_heartbeats': {
      async up(db: AnyDb) {
        // One row per running worker process, touched every few seconds, for the status page: an
        // idle worker leaves no other trace. A handful of rows: no index beyond the key.
        await db.schema
          .createTable('worker_heartbeats')
          .addColumn('worker_id', 'text', (c) => c.primaryKey())
          .addColumn('started_at', 'bigint', (c) => c.notNull())
          .addColumn('seen_at', 'bigint', (c) => c.notNull())
          .$call(textKeyed)
          .execute();
      },
    },
    '008_panel_analytics': {
      async up(db: AnyDb) {
        // The panel's charts aggregate a range of an account's chat requests from an index that
        // covers every column they read (one index scan, no row lookups). It replaces usage_account,
        // whose (account_id, created_at) prefix it keeps, so a chat request still writes one index.
        await db.schema
          .createIndex('usage_account_cover')
          .on('usage_records')
          .columns([
            'account_id',
            'created_at',
            'key_id',
            'model_id',
            'cost',
            'input_tokens',
            'output_tokens',
          ])
          .execute();
        await db.schema.dropIndex('usage_account').execute();
        // The panel lists a task's webhook deliveries.
        await db.schema.createIndex('webhook_task').on('webhook_deliveries').column('task_id').execute();
        // Daily totals of days that can no longer change (sealed), filled the first time a chart
        // asks for them: a month or a year of charts reads a few thousand rows, not every request.
        await db.schema
          .createTable('usage_daily')
          .addColumn('account_id', 'bigint', (c) => c.notNull())
          .addColumn('day', 'bigint', (c) => c.notNull())
          .addColumn('key_id', 'bigint', (c) => c.notNull())
          .addColumn('model_id', 'text', (c) => c.notNull())
          .addColumn('requests', 'bigint', (c) => c.notNull())
          .addColumn('spent', 'bigint', (c) => c.notNull())
          .addColumn('input_tokens', 'bigint', (c) => c.notNull())
          .addColumn('output_tokens', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('usage_daily_pk', ['account_id', 'day', 'key_id', 'model_id'])
          .$call(textKeyed)
          .execute();
        await db.schema
          .createTable('usage_days_sealed')
          .addColumn('account_id', 'bigint', (c) => c.notNull())
          .addColumn('day', 'bigint', (c) => c.notNull())
          .addColumn('sealed_at', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('usage_days_sealed_pk', ['account_id', 'day'])
          .$call(textKeyed)
          .execute();
        await db.schema
          .createTable('task_outcomes_daily')
          .addColumn('account_id', 'bigint', (c) => c.notNull())
          .addColumn('day', 'bigint', (c) => c.notNull())
          .addColumn('key_id', 'bigint', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('error_kind', 'text', (c) => c.notNull())
          .addColumn('tasks', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('task_outcomes_daily_pk', [
            'account_id',
            'day',
            'key_id',
            'status',
            'error_kind',
          ])
          .$call(textKeyed)
          .execute();
        // Transfers between an owner's keys are `transfer` entries (signed, like `adjust`).
        const kinds = sql`kind in ('topup', 'hold', 'capture', 'release', 'adjust', 'transfer')`;
        if (engine === 'postgres') {
          await sql`alter table ledger_entries drop constraint ledger_kind_valid`.execute(db);
          await sql`alter table ledger_entries add constraint ledger_kind_valid check (${kinds})`.execute(db);
          return;
        }
        // SQLite cannot alter a CHECK constraint: rebuild the table with the new one, keeping its
        // rows (ids included) and re-creating whatever indexes it has.
        const indexes = await sql<{ sql: string }>`select sql from sqlite_master
          where type = 'index' and tbl_name = 'ledger_entries' and sql is not null`.execute(db);
        const columns = sql.raw(
          'id, key_id, account_id, task_id, kind, amount, balance_after, held_after, note, created_at',
        );
        await db.schema
          .createTable('ledger_entries_new')
          .addColumn('id', 'integer', appendOnlyId)
          .addColumn('key_id', 'bigint', (c) => c.notNull().references('api_keys.id'))
          .addColumn('account_id', 'bigint', (c) => c.notNull())
          .addColumn('task_id', 'text')
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('amount', 'bigint', (c) => c.notNull())
          .addColumn('balance_after', 'bigint', (c) => c.notNull())
          .addColumn('held_after', 'bigint', (c) => c.notNull())
          .addColumn('note', 'text')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addUniqueConstraint('ledger_task_kind', ['task_id', 'kind'])
          .addCheckConstraint('ledger_kind_valid', kinds)
          .addCheckConstraint('ledger_balance_nonneg', sql`balance_after >= 0 and held_after >= 0`)
          .execute();
        await sql`insert into ledger_entries_new (${columns}) select ${columns} from ledger_entries`.execute(
          db,
        );
        await db.schema.dropTable('ledger_entries').execute();
        await sql`alter table ledger_entries_new rename to ledger_entries`.execute(db);
        for (const index of indexes.rows) await sql.raw(index.sql).execute(db);
      },
    },
    '009_chat_holds': {
      async up(db: AnyDb) {
        // An open chat hold is a row of its own, deleted when the hold is settled, and the request's
        // usage row is written once, complete, at the settlement. A pending usage row was written
        // twice (opened, then completed by a non-HOT update of three indexes), and finding it again
        // took a partial index whose dead entries grew with every request. Only the primary key:
        // the table holds the requests in flight, and the sweeps that read it by process or by age
        // scan those few rows.
        await db.schema
          .createTable('chat_holds')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('account_id', 'bigint', (c) => c.notNull())
          .addColumn('key_id', 'bigint', (c) => c.notNull())
          .addColumn('model_id', 'text', (c) => c.notNull())
          .addColumn('amount', 'bigint', (c) => c.notNull())
          .addColumn('process_id', 'text')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .$call(textKeyed)
          .execute();
        // Requests in flight during the upgrade: their holds move over (the hold entry has the amount),
        // and their pending usage rows go; the settlement writes them again, complete.
        await sql`insert into chat_holds (id, account_id, key_id, model_id, amount, process_id, created_at)
          select u.id, u.account_id, u.key_id, u.model_id, h.amount, u.process_id, u.created_at
          from usage_records u join ledger_entries h on h.task_id = u.id and h.kind = 'hold'
          where u.status = 'pending'`.execute(db);
        await sql`delete from usage_records where status = 'pending'`.execute(db);
        await db.schema.dropIndex('usage_pending').execute();
      },
    },
    '010_ledger_key_reference': {
      async up(db: AnyDb) {
        // PostgreSQL: no foreign key from ledger entries to their key. Its check ran a query per
        // inserted entry (three per chat request), on the key row the same statement had just
        // locked and updated: a quarter of the batched chat statements' time
        // (bench/NOTES.md, round 7). Every entry is written by a statement that moves its key's
        // balance, keys are never deleted (only marked), and `gengate ledger check` reports an
        // entry without its key. SQLite keeps it: there it costs a lookup in the same process.
        if (engine !== 'postgres') return;
        await sql`alter table ledger_entries drop constraint if exists ledger_entries_key_id_fkey`.execute(
          db,
        );
      },
    },
    '011_task_key_references': {
      async up(db: AnyDb) {
        // PostgreSQL: no foreign keys from tasks to their key and account, for the reason of 010: a
        // query per inserted task on the key row its batched insert had just locked and updated
        // (bench/pg-storage.ts, POST /generate on one hot key: bench/NOTES.md, round 7). A task is
        // created only for an authenticated key, in the statement that holds on it, and neither keys
        // nor accounts are ever deleted; `gengate ledger check` reports a task without its key.
        if (engine !== 'postgres') return;
        await sql`alter table tasks drop constraint if exists tasks_key_id_fkey`.execute(db);
        await sql`alter table tasks drop constraint if exists tasks_account_id_fkey`.execute(db);
      },
    },
    '005_panel_auth': {
      async up(db: AnyDb) {
        // Panel two-factor authentication: the TOTP secret (kept readable: verifying needs it; it is
        // pending until confirmed with a code), the last accepted time step (a code works once), and
        // recovery codes stored only as hashes.
        await db.schema
          .createTable('panel_totp')
          .addColumn('account_id', 'bigint', (c) => c.primaryKey())
          .addColumn('secret', 'text', (c) => c.notNull())
          .addColumn('enabled_at', 'bigint')
          .addColumn('last_step', 'bigint')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema
          .createTable('panel_recovery_codes')
          .addColumn('code_hash', 'text', (c) => c.primaryKey())
          .addColumn('account_id', 'bigint', (c) => c.notNull())
          .addColumn('used_at', 'bigint')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex('panel_recovery_codes_account')
          .on('panel_recovery_codes')
          .column('account_id')
          .execute();
        // "Sign out everywhere" deletes one account's sessions.
        await db.schema.createIndex('panel_tokens_account').on('panel_tokens').column('account_id').execute();
      },
    },
    '013_second_factor_attempts': {
      async up(db: AnyDb) {
        // One row per account: every check of a second-factor code (sign-in, turning 2FA on or off,
        // new recovery codes) counts here, in the database so that the limit holds across API
        // processes and restarts. `failures` counts checks since the last right code (taken before
        // the check, so concurrent guesses cannot pass the limit); `lockouts` sets the next lock's
        // length; `refused` counts attempts turned away by the current lock.
        await db.schema
          .createTable('panel_second_factor_attempts')
          .addColumn('account_id', 'bigint', (c) => c.primaryKey())
          .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('lockouts', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('locked_until', 'bigint')
          .addColumn('refused', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .execute();
      },
    },
    '016_key_limits': {
      async up(db: AnyDb) {
        // Key limits: an expiry, and a spend cap per period. spend_in_period counts what the key
        // held (net of releases) since spend_since; a hold finding spend_since before its period's
        // start counts afresh from that start. The hold's guarded UPDATE moves the counter with the
        // balance, so the cap is exact under concurrency.
        await db.schema.alterTable('api_keys').addColumn('expires_at', 'bigint').execute();
        await db.schema.alterTable('api_keys').addColumn('spend_limit', 'bigint').execute();
        await db.schema.alterTable('api_keys').addColumn('spend_limit_period', 'text').execute();
        await db.schema
          .alterTable('api_keys')
          .addColumn('spend_in_period', 'bigint', (c) => c.notNull().defaultTo(0))
          .execute();
        await db.schema
          .alterTable('api_keys')
          .addColumn('spend_since', 'bigint', (c) => c.notNull().defaultTo(0))
          .execute();
      },
    },
    '014_provider_accounts': {
      async up(db: AnyDb) {
        // The health of each PROVIDERS_FILE account (circuit breaker, down after an auth or billing
        // refusal), one row per account name, shared by every worker process. `version` makes each
        // change a compare-and-set, so two workers recording at once never lose an outcome.
        await db.schema
          .createTable('provider_health')
          .addColumn('name', 'text', (c) => c.primaryKey())
          .addColumn('state', 'text', (c) => c.notNull())
          .addColumn('window_start', 'bigint', (c) => c.notNull())
          .addColumn('window_total', 'integer', (c) => c.notNull())
          .addColumn('window_failures', 'integer', (c) => c.notNull())
          .addColumn('open_until', 'bigint')
          .addColumn('probe_task', 'text')
          .addColumn('probe_at', 'bigint')
          .addColumn('last_error', 'text')
          .addColumn('checked_at', 'bigint')
          .addColumn('version', 'integer', (c) => c.notNull())
          .$call(textKeyed)
          .execute();
        // One row per task that holds a place at an account (max_concurrency, and the in-flight
        // count of GET /admin/providers). A row counts only while its task is processing, so the
        // place of a task that finished or was re-queued is free even before its row is deleted.
        await db.schema
          .createTable('provider_slots')
          .addColumn('task_id', 'text', (c) => c.primaryKey())
          .addColumn('provider', 'text', (c) => c.notNull())
          .addColumn('acquired_at', 'bigint', (c) => c.notNull())
          .$call(textKeyed)
          .execute();
        await db.schema
          .createIndex('provider_slots_provider')
          .on('provider_slots')
          .column('provider')
          .execute();
      },
    },
    '012_gpt_image_1_variants': {
      async up(db: AnyDb) {
        // gpt-image-1 priced by quality and size (docs/openai.md). A database seeded before this
        // release has gpt-image-1 at one price for every quality and size and no `quality` default
        // (so the upstream picked "auto"). Its row is upgraded only while it is still the one that
        // shipped (same schema, no billing rules); an operator's own edits are left alone (they
        // import the variants themselves: docs/DECISIONS.md, issue 33).
        const row = await db
          .selectFrom('models')
          .selectAll()
          .where('id', '=', 'gpt-image-1')
          .executeTakeFirst();
        if (!row || row.billing !== null || row.params_schema === null) return;
        if (row.params_schema !== JSON.stringify(GPT_IMAGE_1_SCHEMA_BEFORE_012)) return;
        const schema = structuredClone(GPT_IMAGE_1_SCHEMA_BEFORE_012);
        schema.properties.quality.default = 'medium';
        const now = Date.now();
        const variants = GPT_IMAGE_1_PRICES_012.map(([quality, size, ratio, priceMicro]) => ({
          id: `gpt-image-1:${quality}-${size}`,
          when: { quality, aspect_ratio: ratio },
          priceMicro,
          name: `GPT Image 1, ${quality} quality, ${size} (billing)`,
        }));
        for (const variant of variants) {
          await db
            .insertInto('models')
            .values({
              id: variant.id,
              name: variant.name,
              provider: 'OpenAI',
              kind: 'image',
              unit: 'shot',
              price_micro: variant.priceMicro,
              price_output_micro: null,
              active: 1,
              visible: 0,
              vision: 0,
              route: null,
              params_schema: JSON.stringify(schema),
              billing: null,
              sort_order: row.sort_order,
              updated_at: now,
            })
            .onConflict((oc: any) => oc.column('id').doNothing())
            .execute();
        }
        await db
          .updateTable('models')
          .set({
            params_schema: JSON.stringify(schema),
            billing: JSON.stringify({ variants: variants.map(({ when, id }) => ({ when, model: id })) }),
            // The shipped price (6 RUB) becomes the price of the defaults, medium 1024x1024.
            ...(Number(row.price_micro) === 6_000_000 ? { price_micro: 3_780_000 } : {}),
            updated_at: now,
          })
          .where('id', '=', 'gpt-image-1')
          .execute();
      },
    },
    '018_model_cache_and_tool_prices': {
      async up(db: AnyDb) {
        // The Messages API bills prompt-cache writes and reads at their own prices, and Anthropic's
        // server tools per use (per 1,000); null keeps the defaults (1.25× / 0.1× input; tool refused).
        for (const column of [
          'price_cache_write_micro',
          'price_cache_read_micro',
          'price_web_search_micro',
          'price_web_fetch_micro',
        ])
          await db.schema.alterTable('models').addColumn(column, 'bigint').execute();
      },
    },
    '016_low_balance_notices': {
      async up(db: AnyDb) {
        // The owner's low-balance threshold, on the account, and copied onto each of its keys so the
        // settlement statements read it from the key row they already update.
        await db.schema.alterTable('accounts').addColumn('low_balance', 'bigint').execute();
        await db.schema.alterTable('api_keys').addColumn('low_balance', 'bigint').execute();
        // The notices' outbox: written with the movement that crossed the threshold, sent by a
        // worker under a lease.
        await db.schema
          .createTable('balance_notices')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('account_id', 'bigint', (c) => c.notNull())
          .addColumn('key_id', 'bigint', (c) => c.notNull())
          .addColumn('funds', 'bigint', (c) => c.notNull())
          .addColumn('threshold', 'bigint', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
          .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
          .addColumn('lease_expires_at', 'bigint')
          .addColumn('last_error', 'text')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('sent_at', 'bigint')
          .$call(textKeyed)
          .execute();
        await db.schema
          .createIndex('balance_notices_due')
          .on('balance_notices')
          .columns(['status', 'next_attempt_at'])
          .execute();
      },
    },
    '015_topups': {
      async up(db: AnyDb) {
        await topupsMigration(db, engine);
      },
    },
    '017_console_and_margin': {
      async up(db: AnyDb) {
        // Provider cost beside the charge (null: the route carries no cost, never zero).
        await db.schema.alterTable('tasks').addColumn('provider_cost', 'bigint').execute();
        await db.schema.alterTable('usage_records').addColumn('provider', 'text').execute();
        await db.schema.alterTable('usage_records').addColumn('provider_cost', 'bigint').execute();
        // The margin rollup, sealed with usage_daily: per account, day, model and provider. `cost`
        // sums the known costs of `costed` requests; the report shows a cost only when all are known.
        await db.schema
          .createTable('margin_daily')
          .addColumn('account_id', 'bigint', (c) => c.notNull())
          .addColumn('day', 'bigint', (c) => c.notNull())
          .addColumn('model_id', 'text', (c) => c.notNull())
          .addColumn('provider', 'text', (c) => c.notNull())
          .addColumn('requests', 'bigint', (c) => c.notNull())
          .addColumn('revenue', 'bigint', (c) => c.notNull())
          .addColumn('cost', 'bigint', (c) => c.notNull())
          .addColumn('costed', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('margin_daily_pk', ['account_id', 'day', 'model_id', 'provider'])
          .execute();
        await db.schema.createIndex('margin_daily_day').on('margin_daily').column('day').execute();
        // Days sealed before the margin rollup existed are sealed again (usage_daily keeps its rows:
        // its inserts do nothing on conflict) so that margin_daily covers them too.
        await db.deleteFrom('usage_days_sealed').execute();
        // The operator console: sign-in links and sessions (hashed), and the operator audit log.
        await db.schema
          .createTable('console_tokens')
          .addColumn('token_hash', 'text', (c) => c.primaryKey())
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('expires_at', 'bigint', (c) => c.notNull())
          .addColumn('used_at', 'bigint')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema
          .createTable('operator_audit')
          .addColumn('id', id, pk)
          .addColumn('actor', 'text', (c) => c.notNull())
          .addColumn('action', 'text', (c) => c.notNull())
          .addColumn('target', 'text')
          .addColumn('before', 'text')
          .addColumn('after', 'text')
          .addColumn('ip', 'text')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
      },
    },
  };
}

/** Which migrations ran: one row each. */
const MIGRATIONS_TABLE = 'gengate_migrations';
/** Serializes migrators on PostgreSQL (the whole database), like Kysely's own migrator lock. */
const PG_MIGRATION_LOCK = 7_463_127_001;

/**
 * Applies the pending migrations in one transaction and returns their names. A small runner rather
 * than Kysely's Migrator, which introspects the tables of every schema in the database: that breaks
 * when another schema is dropped meanwhile (parallel test suites do it all the time) and reads
 * another app's bookkeeping as ours. Concurrent starts are safe: SQLite's BEGIN IMMEDIATE and a
 * PostgreSQL advisory lock let one process migrate while the others wait, then find nothing to do.
 */
export async function migrateToLatest(db: Db): Promise<string[]> {
  return migrateThrough(db);
}

/** migrateToLatest, stopping after migration `last` (tests of a migration start from the schema before it). */
export async function migrateThrough(db: Db, last?: string): Promise<string[]> {
  const all = Object.entries(migrations(db.engine))
    .filter(([name]) => last === undefined || name.localeCompare(last) <= 0)
    .sort(([a], [b]) => a.localeCompare(b));
  return db.kysely.transaction().execute(async (trx) => {
    const tx = trx as unknown as AnyDb;
    if (db.engine === 'postgres') await sql`select pg_advisory_xact_lock(${PG_MIGRATION_LOCK})`.execute(tx);
    await tx.schema
      .createTable(MIGRATIONS_TABLE)
      .ifNotExists()
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('applied_at', 'bigint', (c) => c.notNull())
      .execute();
    const done = new Set<string>(
      (await tx.selectFrom(MIGRATIONS_TABLE).select('name').execute()).map((r) => r.name),
    );
    const applied: string[] = [];
    for (const [name, migration] of all) {
      if (done.has(name)) continue;
      await migration.up(tx);
      await tx.insertInto(MIGRATIONS_TABLE).values({ name, applied_at: Date.now() }).execute();
      applied.push(name);
    }
    return applied;
  });
}

/**
 * The known migrations not yet recorded in the database (all of them when it was never migrated).
 * Empty means the schema is at the latest migration: the readiness probe asks this.
 */
export async function pendingMigrations(db: Pick<Db, 'kysely' | 'engine'>): Promise<string[]> {
  const known = Object.keys(migrations(db.engine)).sort();
  let rows: { name: string }[];
  try {
    rows = await (db.kysely as unknown as AnyDb).selectFrom(MIGRATIONS_TABLE).select('name').execute();
  } catch (error) {
    // No bookkeeping table yet (not introspection: see migrateToLatest).
    if (isMissingTable(error)) return known;
    throw error;
  }
  const done = new Set(rows.map((r) => r.name));
  return known.filter((name) => !done.has(name));
}

function isMissingTable(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  return e?.code === '42P01' || /no such table/i.test(e?.message ?? '');
}

/** gpt-image-1's parameter schema as shipped before migration 012, key order included. */
const GPT_IMAGE_1_SCHEMA_BEFORE_012 = {
  type: 'object',
  properties: {
    model_name: { type: 'string' },
    prompt: { type: 'string', minLength: 1, maxLength: 4000 },
    aspect_ratio: { type: 'string', enum: ['1:1', '3:2', '2:3'], default: '1:1' },
    seed: { type: 'integer', minimum: 0, maximum: 4294967295 },
    webhook_url: { type: 'string', format: 'uri' },
    quality: { type: 'string', enum: ['low', 'medium', 'high'] } as Record<string, unknown>,
  },
  required: ['model_name', 'prompt'],
  additionalProperties: false,
};

/** OpenAI's per-image prices of gpt-image-1 at 90 RUB per USD, in micro-rubles (migration 012). */
const GPT_IMAGE_1_PRICES_012: [string, string, string, number][] = [
  ['low', '1024x1024', '1:1', 990_000],
  ['low', '1536x1024', '3:2', 1_440_000],
  ['low', '1024x1536', '2:3', 1_440_000],
  ['medium', '1024x1024', '1:1', 3_780_000],
  ['medium', '1536x1024', '3:2', 5_670_000],
  ['medium', '1024x1536', '2:3', 5_670_000],
  ['high', '1024x1024', '1:1', 15_030_000],
  ['high', '1536x1024', '3:2', 22_500_000],
  ['high', '1024x1536', '2:3', 22_500_000],
];
