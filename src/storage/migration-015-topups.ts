// Migration 015: money in. Top-ups paid through a payment provider, their refunds, and codes
// (vouchers), plus the ledger kinds they write (`redeem`, `refund`, `refund_reversal`), with the
// kind constraint now built from domain/billing/ledger-kinds.ts.
import { type Kysely, sql } from 'kysely';
import type { LedgerKind } from '../domain/billing/ledger-kinds.js';
import type { Engine } from './db.js';
import { ledgerKindCheck } from './ledger/kind-sql.js';

type AnyDb = Kysely<any>;

/** The kinds this migration allows; a later kind gets its own migration calling setLedgerKinds. */
const KINDS_015: LedgerKind[] = [
  'topup',
  'hold',
  'capture',
  'release',
  'adjust',
  'transfer',
  'redeem',
  'refund',
  'refund_reversal',
];

/**
 * Re-declares the ledger's kind constraint. PostgreSQL alters it in place; SQLite cannot alter a
 * CHECK constraint, so the table is rebuilt with its rows (ids included) and its indexes.
 */
export async function setLedgerKinds(db: AnyDb, engine: Engine, kinds: LedgerKind[]): Promise<void> {
  const check = ledgerKindCheck(kinds);
  if (engine === 'postgres') {
    await sql`alter table ledger_entries drop constraint ledger_kind_valid`.execute(db);
    await sql`alter table ledger_entries add constraint ledger_kind_valid check (${check})`.execute(db);
    return;
  }
  const indexes = await sql<{ sql: string }>`select sql from sqlite_master
    where type = 'index' and tbl_name = 'ledger_entries' and sql is not null`.execute(db);
  const columns = sql.raw(
    'id, key_id, account_id, task_id, kind, amount, balance_after, held_after, note, created_at',
  );
  await db.schema
    .createTable('ledger_entries_new')
    .addColumn('id', 'integer', (c) => c.primaryKey())
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
    .addCheckConstraint('ledger_kind_valid', check)
    .addCheckConstraint('ledger_balance_nonneg', sql`balance_after >= 0 and held_after >= 0`)
    .execute();
  await sql`insert into ledger_entries_new (${columns}) select ${columns} from ledger_entries`.execute(db);
  await db.schema.dropTable('ledger_entries').execute();
  await sql`alter table ledger_entries_new rename to ledger_entries`.execute(db);
  for (const index of indexes.rows) await sql.raw(index.sql).execute(db);
}

export async function topupsMigration(db: AnyDb, engine: Engine): Promise<void> {
  await setLedgerKinds(db, engine, KINDS_015);

  // One row per attempt to pay in. Its credit is the `topup` ledger entry whose task_id is this id
  // (UNIQUE(task_id, kind): once), written in the transaction that sets `succeeded`.
  await db.schema
    .createTable('topups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('key_id', 'bigint', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('provider_payment_id', 'text', (c) => c.unique())
    .addColumn('confirmation_url', 'text')
    .addColumn('email', 'text')
    /** What the provider charges, in its currency's minor units (Stripe: cents). */
    .addColumn('charge_currency', 'text', (c) => c.notNull())
    .addColumn('charge_minor', 'bigint', (c) => c.notNull())
    .addColumn('cancel_reason', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('paid_at', 'bigint')
    .addColumn('refunded_at', 'bigint')
    /** When reconcile next re-reads a pending top-up from its provider. */
    .addColumn('check_at', 'bigint', (c) => c.notNull())
    .addCheckConstraint('topups_amount_positive', sql`amount > 0`)
    .addCheckConstraint(
      'topups_status_valid',
      sql`status in ('pending', 'succeeded', 'canceled', 'refunded')`,
    )
    .execute();
  await db.schema.createIndex('topups_key').on('topups').columns(['key_id', 'created_at']).execute();
  await db.schema.createIndex('topups_status_check').on('topups').columns(['status', 'check_at']).execute();

  // A refund of a top-up: debited (`refund` entry) before the provider is asked; a refused one is
  // reversed (`refund_reversal`). Both entries carry this id.
  await db.schema
    .createTable('topup_refunds')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('topup_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('key_id', 'bigint', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('provider_refund_id', 'text')
    .addColumn('failure', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addCheckConstraint('topup_refunds_amount_positive', sql`amount > 0`)
    .addCheckConstraint('topup_refunds_status_valid', sql`status in ('pending', 'succeeded', 'refused')`)
    .execute();
  await db.schema.createIndex('topup_refunds_topup').on('topup_refunds').column('topup_id').execute();

  // Codes (vouchers): only the hash is kept. Redeemed once, in the transaction of its `redeem` entry.
  await db.schema
    .createTable('topup_codes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('code_hash', 'text', (c) => c.notNull().unique())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('redeemed_at', 'bigint')
    .addColumn('redeemed_key_id', 'bigint')
    .addCheckConstraint('topup_codes_amount_positive', sql`amount > 0`)
    .execute();
}
