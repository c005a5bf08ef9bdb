// Test helpers for money in: a gengate wired to the loopback YooKassa and Stripe fakes.
import { afterEach, beforeEach, expect } from 'vitest';
import type { Engine } from '../storage/db.js';
import { checkLedger } from '../storage/ledger/ledger-check.js';
import { createTestApp, type TestApp, type TestKey } from './app.js';
import type { TestDb } from './db.js';
import { StripeFake } from './fakes/stripe.js';
import { YookassaFake } from './fakes/yookassa.js';

export const STRIPE_WEBHOOK_SECRET = 'whsec_test_secret_for_gengate';

export interface PaymentsHarness {
  app: TestApp;
  yookassa: YookassaFake;
  stripe: StripeFake;
  key: TestKey;
  dispose(): Promise<void>;
}

export async function paymentsHarness(
  engine: Engine,
  options: {
    env?: Record<string, string>;
    receipts?: boolean;
    db?: TestDb;
    yookassa?: YookassaFake;
    stripe?: StripeFake;
  } = {},
): Promise<PaymentsHarness> {
  const yookassa =
    options.yookassa ?? (await new YookassaFake('123456', 'test_secret', options.receipts ?? false).start());
  const stripe = options.stripe ?? (await new StripeFake('sk_test_gengate', STRIPE_WEBHOOK_SECRET).start());
  const app = await createTestApp({
    engine,
    db: options.db,
    env: {
      YOOKASSA_SHOP_ID: yookassa.shopId,
      YOOKASSA_SECRET_KEY: yookassa.secretKey,
      YOOKASSA_API_URL: yookassa.apiUrl,
      YOOKASSA_NOTIFY_IPS: '127.0.0.1,::1',
      YOOKASSA_RECEIPTS: options.receipts ? 'true' : 'false',
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
      STRIPE_API_URL: stripe.server.origin,
      STRIPE_CURRENCY: 'usd',
      STRIPE_RUB_PER_UNIT: '90',
      PAYMENT_PROVIDER_TIMEOUT_MS: '300',
      ...options.env,
    },
  });
  const key = await app.newKey({ balanceRub: 0 });
  return {
    app,
    yookassa,
    stripe,
    key,
    async dispose() {
      await app.dispose();
      if (!options.yookassa) await yookassa.close();
      if (!options.stripe) await stripe.close();
    },
  };
}

export async function expectLedgerClean(app: TestApp): Promise<void> {
  expect(await checkLedger(app.ctx.storage.db)).toEqual([]);
}

export async function balanceRub(app: TestApp, key: TestKey): Promise<number> {
  const b = await app.ctx.storage.keys.balanceOf(key.keyId);
  return Number(b?.balance ?? 0) / 1e6;
}

export async function topupEntries(app: TestApp, topupId: string) {
  return app.ctx.storage.ledger.entriesForTask(topupId);
}

/**
 * Per test: a fresh harness on `engine`, handed to `use`; after the test the ledger check must be
 * clean, then the harness is disposed. Call it inside a describe block.
 */
export function eachPaymentsHarness(engine: Engine, use: (harness: PaymentsHarness) => void): void {
  let current: PaymentsHarness;
  beforeEach(async () => {
    current = await paymentsHarness(engine);
    use(current);
  });
  afterEach(async () => {
    await expectLedgerClean(current.app);
    await current.dispose();
  });
}

/** POST /me/topups as the harness's key, with extra headers (e.g. Idempotency-Key). */
export function createTopup(
  h: PaymentsHarness,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return h.app.http.inject({
    method: 'POST',
    url: '/me/topups',
    headers: { ...h.key.auth, ...headers },
    payload: body,
  });
}
