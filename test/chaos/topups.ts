// Top-ups by card under chaos: a loopback YooKassa (src/testing/fakes/yookassa.ts) in the chaos
// process, payers who pay most payments and abandon some, and notifications sent 1 to 5 times at
// once to random API processes, or lost (reconcile must credit those). Creation retries with the same
// Idempotency-Key when a process dies under it. At the end every paid payment must be credited
// exactly once, and nothing else.
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { YookassaFake } from '../../src/testing/fakes/yookassa.js';
import type { CheckResult } from './checks.js';
import type { GengateProcess } from './cluster.js';
import type { KeyInfo } from './load.js';
import { sleep } from './load.js';
import type { Random } from './random.js';

/** Reconcile runs often in the run, so lost notifications are found before the end. */
export const CHAOS_RECONCILE_MS = 2_000;

export class TopupLoad {
  readonly fake = new YookassaFake('chaos-shop', `chaos_${randomBytes(8).toString('hex')}`);
  /** payment id → micro-rubles, for the payments the payer paid. */
  readonly paid = new Map<string, number>();
  readonly stats = { created: 0, paid: 0, abandoned: 0, notifications: 0, lost: 0, createFailures: 0 };
  private stopped = false;

  private apis: GengateProcess[] = [];
  private keys: KeyInfo[] = [];

  constructor(private readonly random: Random) {}

  /** The API processes to call and the keys that pay (known once the cluster is up). */
  attach(apis: GengateProcess[], keys: KeyInfo[]): void {
    this.apis = apis;
    this.keys = keys;
  }

  async start(): Promise<Record<string, string>> {
    await this.fake.start();
    return {
      YOOKASSA_SHOP_ID: this.fake.shopId,
      YOOKASSA_SECRET_KEY: this.fake.secretKey,
      YOOKASSA_API_URL: this.fake.apiUrl,
      YOOKASSA_NOTIFY_IPS: '127.0.0.1,::1',
      TOPUP_RECONCILE_MS: String(CHAOS_RECONCILE_MS),
      PAYMENT_PROVIDER_TIMEOUT_MS: '3000',
    };
  }

  stop(): void {
    this.stopped = true;
  }

  close(): Promise<void> {
    return this.fake.close();
  }

  /** Micro-rubles the paid payments should have credited. */
  get paidMicro(): number {
    let sum = 0;
    for (const amount of this.paid.values()) sum += amount;
    return sum;
  }

  async run(deadline: number): Promise<void> {
    const running: Promise<void>[] = [];
    while (!this.stopped && Date.now() < deadline) {
      await sleep(this.random.int(300, 1_200));
      running.push(this.one().catch(() => undefined));
    }
    await Promise.all(running);
  }

  /** One payer: create (retrying with one Idempotency-Key), pay or abandon, then notify. */
  private async one(): Promise<void> {
    const key = this.random.pick(this.keys.filter((k) => !k.poor));
    const amountRub = this.random.int(100, 2_000);
    const idem = `chaos-topup-${randomBytes(8).toString('hex')}`;
    let topupId: string | undefined;
    for (let attempt = 0; attempt < 6 && !topupId; attempt++) {
      try {
        const res = await fetch(`${this.random.pick(this.apis).url}/me/topups`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${key.secret}`,
            'content-type': 'application/json',
            'idempotency-key': idem,
          },
          body: JSON.stringify({ amount_rub: amountRub, method: 'yookassa' }),
        });
        const body = (await res.json()) as { id?: string };
        if (res.status === 201 && body.id) topupId = body.id;
        else this.stats.createFailures++;
      } catch {
        this.stats.createFailures++;
      }
      if (!topupId) await sleep(500);
    }
    if (!topupId) return;
    this.stats.created++;
    const payment = [...this.fake.payments.values()].find((p) => p.metadata.topup_id === topupId);
    if (!payment) return;
    if (this.random.chance(0.15)) {
      this.fake.cancel(payment.id);
      this.stats.abandoned++;
    } else {
      this.fake.succeed(payment.id);
      this.paid.set(payment.id, amountRub * 1_000_000);
      this.stats.paid++;
    }
    if (this.random.chance(0.2)) {
      this.stats.lost++;
      return;
    }
    const copies = this.random.int(1, 5);
    const body = JSON.stringify(
      this.fake.notification(
        payment.id,
        payment.status === 'succeeded' ? 'payment.succeeded' : 'payment.canceled',
      ),
    );
    await Promise.all(
      Array.from({ length: copies }, async () => {
        this.stats.notifications++;
        await fetch(`${this.random.pick(this.apis).url}/hooks/payments/yookassa`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        })
          .then((r) => r.arrayBuffer())
          .catch(() => undefined);
      }),
    );
  }

  /** Waits until no paid payment's top-up is still pending (reconcile catches the lost ones). */
  async settle(db: Pick<pg.Client, 'query'>, limitMs: number): Promise<void> {
    const started = Date.now();
    const ids = [...this.paid.keys()];
    while (Date.now() - started < limitMs) {
      const { rows } = await db.query<{ n: string }>(
        `select count(*) as n from topups where status = 'pending' and provider_payment_id = any($1::text[])`,
        [ids],
      );
      if (Number(rows[0].n) === 0) return;
      await sleep(500);
    }
  }

  /** Each paid payment credited once, with its amount; nothing credited for the others. */
  async check(db: Pick<pg.Client, 'query'>): Promise<CheckResult> {
    const { rows } = await db.query<{
      id: string;
      status: string;
      amount: string;
      provider_payment_id: string;
      credits: string;
      credited: string | null;
    }>(
      `select t.id, t.status, t.amount, t.provider_payment_id, count(e.id) as credits, sum(e.amount) as credited
       from topups t left join ledger_entries e on e.task_id = t.id and e.kind = 'topup'
       group by t.id, t.status, t.amount, t.provider_payment_id`,
    );
    const violations: string[] = [];
    for (const row of rows) {
      const expected = this.paid.get(row.provider_payment_id);
      const credits = Number(row.credits);
      if (expected !== undefined) {
        if (row.status !== 'succeeded' || credits !== 1 || Number(row.credited) !== expected)
          violations.push(
            `${row.id}: paid ${expected}, status ${row.status}, ${credits} credits of ${row.credited}`,
          );
      } else if (credits !== 0 || row.status === 'succeeded') {
        violations.push(`${row.id}: not paid, status ${row.status}, ${credits} credits`);
      }
    }
    const known = new Set(rows.map((r) => r.provider_payment_id));
    for (const id of this.paid.keys())
      if (!known.has(id)) violations.push(`payment ${id} paid but no top-up row`);
    return {
      name: 'every paid top-up credited exactly once, whatever the duplicate or lost notifications',
      violations: violations.slice(0, 10),
      figures: { ...this.stats, topups: rows.length, paid_rub: this.paidMicro / 1_000_000 },
    };
  }
}
