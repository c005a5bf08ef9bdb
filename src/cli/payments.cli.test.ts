// `gengate codes create`, `gengate topups list` and `gengate topups refund`, run as an operator
// runs them (node bin/gengate.mjs) on a DATA_DIR of their own, against the loopback YooKassa fake.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildGengate } from '../app.js';
import { loadConfig } from '../config.js';
import { checkLedger } from '../storage/ledger/ledger-check.js';
import { YookassaFake } from '../testing/fakes/yookassa.js';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'gengate-cli-pay-'));
const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
  rmSync(dir, { recursive: true, force: true });
});

function run(
  env: Record<string, string>,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) =>
    execFile(
      process.execPath,
      ['bin/gengate.mjs', ...args],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', HOME: dir, DATA_DIR: dir, NODE_ENV: 'test', ...env },
        timeout: 90_000,
      },
      (error, stdout, stderr) =>
        done({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    ),
  );
}

describe('gengate payments CLI', { timeout: 240_000 }, () => {
  it('creates codes, lists top-ups and refunds one', async () => {
    const yookassa = await new YookassaFake('123456', 'test_secret').start();
    cleanup.push(() => yookassa.close());
    const env = {
      YOOKASSA_SHOP_ID: '123456',
      YOOKASSA_SECRET_KEY: 'test_secret',
      YOOKASSA_API_URL: yookassa.apiUrl,
      DEMO: 'false',
      LOG_LEVEL: 'silent',
    };
    const codes = await run(env, 'codes', 'create', '--amount', '150', '--count', '2');
    expect(codes.code, codes.stderr).toBe(0);
    expect(JSON.parse(codes.stdout).codes).toHaveLength(2);
    const bad = await run(env, 'codes', 'create', '--amount', '1.001');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('amount_rub');

    // A paid top-up made through the API of a gengate on the same data directory.
    const gengate = await buildGengate(loadConfig({ ...env, DATA_DIR: dir, NODE_ENV: 'test' }));
    const { ctx } = gengate;
    const account = await ctx.accounts.createAccount({ messaging_id: 4242 }, { actor: 'test' });
    const { key, secret } = await ctx.accounts.createKey(account.id, {}, { actor: 'test' });
    const created = await gengate.http.inject({
      method: 'POST',
      url: '/me/topups',
      headers: { authorization: `Bearer ${secret}` },
      payload: { amount_rub: 300, method: 'yookassa' },
    });
    expect(created.statusCode).toBe(201);
    const [payment] = [...yookassa.payments.values()];
    yookassa.succeed(payment.id);
    const method = ctx.payments.methods.get('yookassa')!;
    expect(await ctx.payments.topups.apply(method, await method.readPayment(payment.id), 'test')).toBe(
      'credited',
    );
    await gengate.close();

    const list = await run(env, 'topups', 'list', '--status', 'succeeded');
    expect(list.code, list.stderr).toBe(0);
    const listed = JSON.parse(list.stdout).data;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({
      id: created.json().id,
      key_id: key.id,
      messaging_id: 4242,
      amount_rub: 300,
    });

    const refund = await run(env, 'topups', 'refund', created.json().id, '--amount', '100');
    expect(refund.code, refund.stderr).toBe(0);
    expect(JSON.parse(refund.stdout)).toMatchObject({
      status: 'refunded',
      refund: { status: 'succeeded', amount_rub: 100 },
    });

    const check = await run(env, 'ledger', 'check');
    expect(check.code, check.stderr).toBe(0);
    const after = await buildGengate(loadConfig({ ...env, DATA_DIR: dir, NODE_ENV: 'test' }));
    expect(await checkLedger(after.ctx.storage.db)).toEqual([]);
    expect(Number((await after.ctx.storage.keys.balanceOf(key.id))?.balance)).toBe(200_000_000);
    await after.close();
  });
});
