// The operator console in a real browser (headless Chromium) against a running server: sign in
// (a wrong token refused first), every page, and every action through its form: find and create
// accounts, change a coefficient, create a key (shown once), restrict it, top up and adjust (a
// refused adjust without a note), make a panel link, edit a model (a refused negative price),
// run providers check, find a task across accounts and redeliver its webhook, the undelivered
// list, maintenance on and off, the margin chart with a model sold below cost highlighted, and the
// audit log. Every page at 1280 and 390 px, without sideways scrolling at 390; screenshots in
// test-results/console/.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, listenOnLoopback, type TestKey } from '../testing/app.js';
import { HAVE_BROWSER, launchBrowser } from '../testing/browser.js';
import { type PaymentsHarness, paymentsHarness } from '../testing/payments.js';
import { createTaskTestApp, generate, type TaskTestApp, waitForFinal } from '../testing/tasks.js';

const SHOTS = join(import.meta.dirname, '../../test-results/console');

describe.skipIf(!HAVE_BROWSER)('the operator console in a browser', () => {
  let app: TaskTestApp;
  let owner: TestKey;
  let browser: Browser;
  let origin: string;
  let page: Page;
  let taskId: string;
  let dir: string;
  const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    dir = mkdtempSync(join(tmpdir(), 'gengate-console-'));
    const providersFile = join(dir, 'providers.json');
    // seedream-4 costs the operator more than it sells for: the margin page must say so.
    writeFileSync(
      providersFile,
      JSON.stringify({
        providers: { sim: { type: 'simulator' } },
        routes: {
          'seedream-4': { provider: 'sim', cost_rub: 100 },
          'flux-1-1-pro': { provider: 'sim', cost_rub: 0.5 },
        },
      }),
    );
    app = await createTaskTestApp({ config: { providersFile } });
    owner = await app.newKey({ balanceRub: 500, messagingId: 700100 });
    for (const model of ['seedream-4', 'flux-1-1-pro']) {
      const res = await generate(app, owner, {
        model_name: model,
        prompt: 'a lighthouse',
        webhook_url: 'http://127.0.0.1:9/hook',
      });
      expect(res.statusCode).toBe(202);
      taskId = res.json().task_id;
      expect((await waitForFinal(app, owner, taskId)).status).toBe('completed');
    }
    // The last task's webhook ran out of attempts (no sender runs here: marked as the sender would).
    await app.ctx.storage.db
      .updateTable('webhook_deliveries')
      .set({ status: 'undelivered', attempts: 3, last_error: 'connect ECONNREFUSED' })
      .where('task_id', '=', taskId)
      .execute();
    origin = await listenOnLoopback(app);
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await app?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const submit = async (button: string, url: RegExp) =>
    Promise.all([page.waitForURL(url), page.getByRole('button', { name: button }).first().click()]);

  it('signs in with the admin token after refusing a wrong one', async () => {
    await page.goto(`${origin}/console`);
    await shot('sign-in-1280');
    await page.getByLabel('Admin token').fill('definitely-not-the-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByText('That token is not right.').count()).resolves.toBe(1);
    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await submit('Sign in', /\/console\/accounts$/);
    await expect(page.getByRole('heading', { name: 'Accounts', exact: true }).count()).resolves.toBe(1);
    await shot('accounts-1280');
  });

  it('finds and creates accounts, changes a coefficient, creates a key shown once, restricts it', async () => {
    await page.getByLabel('Messaging id or key prefix').fill('700100');
    await submit('Find', /q=700100/);
    await page.getByRole('link', { name: '700100' }).click();
    await page.waitForURL(/\/console\/accounts\/700100$/);
    await page.getByLabel('New coefficient').fill('0');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(page.getByText('coefficient must be positive').count()).resolves.toBe(1);
    await page.getByLabel('New coefficient').fill('1.5');
    await submit('Save', /done=coefficient/);
    await expect(page.locator('[data-coefficient]').textContent()).resolves.toBe('1.5');

    await page.getByLabel('Name').fill('from the console');
    await page.getByLabel('Requests per minute (empty: default)').last().fill('42');
    await submit('Create key', /done=key/);
    const secret = await page.locator('[data-new-key]').textContent();
    expect(secret).toMatch(/^sk_live_/);
    await shot('account-new-key-1280');
    await page.reload();
    expect(await page.content()).not.toContain(secret!);
    await expect(page.getByText('42/min').count()).resolves.toBeGreaterThan(0);

    // Restrict the new key to one model, then delete it.
    const newKeyId = Number((await page.locator('[data-balance]').last().getAttribute('data-balance'))!);
    const restrict = page.locator(`form[action="/console/accounts/700100/keys/${newKeyId}/restrictions"]`);
    await page.locator('details').last().locator('summary').click();
    await restrict.getByLabel('Allowed models (empty: every model)').fill('flux-1-1-pro');
    await Promise.all([
      page.waitForURL(/done=restricted/),
      restrict.getByRole('button', { name: 'Save restrictions' }).click(),
    ]);
    await expect(page.getByText('models: flux-1-1-pro').count()).resolves.toBe(1);
    const refused = await fetch(`${origin}/generate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ params: { model_name: 'seedream-4', prompt: 'x' } }),
    });
    expect(refused.status).toBe(403);
    await page.locator('details').last().locator('summary').click();
    await Promise.all([
      page.waitForURL(/done=deleted/),
      page.locator(`form[action="/console/accounts/700100/keys/${newKeyId}/delete"] button`).click(),
    ]);
    const gone = await fetch(`${origin}/me/balance`, { headers: { authorization: `Bearer ${secret}` } });
    expect(gone.status).toBe(401);

    await page.goto(`${origin}/console/accounts`);
    await page.getByLabel('Messaging id', { exact: true }).fill('700200');
    await page.getByLabel('Coefficient').fill('2');
    await submit('Create', /\/console\/accounts\/700200\?done=created/);
    await expect(page.getByText('Account created.').count()).resolves.toBe(1);
  });

  it('tops up with a note, refuses an adjust without one, adjusts, and makes a panel link', async () => {
    await page.goto(`${origin}/console/accounts/700100`);
    const money = page.locator(`form[action="/console/accounts/700100/keys/${owner.keyId}/money"]`);
    await money.getByLabel('Amount, ₽').fill('25');
    await money.getByLabel('Note (required)').fill('bank transfer 42');
    await Promise.all([page.waitForURL(/done=topup/), money.getByRole('button', { name: 'Apply' }).click()]);
    const after = Number((await app.ctx.storage.keys.balanceOf(owner.keyId))!.balance);

    const again = page.locator(`form[action="/console/accounts/700100/keys/${owner.keyId}/money"]`);
    await again.getByLabel('Operation').selectOption('adjust');
    await again.getByLabel('Amount, ₽').fill('-5');
    await again.getByRole('button', { name: 'Apply' }).click();
    await expect(page.getByText('A note is required').count()).resolves.toBe(1);
    expect(Number((await app.ctx.storage.keys.balanceOf(owner.keyId))!.balance)).toBe(after);
    await shot('account-refused-adjust-1280');

    const third = page.locator(`form[action="/console/accounts/700100/keys/${owner.keyId}/money"]`);
    await third.getByLabel('Operation').selectOption('adjust');
    await third.getByLabel('Amount, ₽').fill('-5');
    await third.getByLabel('Note (required)').fill('goodwill correction');
    await Promise.all([
      page.waitForURL(/done=adjusted/),
      third.getByRole('button', { name: 'Apply' }).click(),
    ]);
    expect(Number((await app.ctx.storage.keys.balanceOf(owner.keyId))!.balance)).toBe(after - 5_000_000);

    await submit('Make a panel sign-in link', /done=panel_link/);
    await expect(page.locator('[data-panel-link]').textContent()).resolves.toMatch(/\/panel\/login\?token=/);
  });

  it('edits a model: a negative price is refused, then a price and visibility are saved', async () => {
    await page.goto(`${origin}/console/models?q=flux`);
    const row = page.locator('form[action="/console/models/flux-1-1-pro"]');
    await row.getByLabel('Price ₽').fill('-1');
    await row.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('price must not be below zero').count()).resolves.toBe(1);
    const edit = page.locator('form[action="/console/models/flux-1-1-pro"]');
    await edit.getByLabel('Price ₽').fill('4.75');
    await Promise.all([page.waitForURL(/done=model/), edit.getByRole('button', { name: 'Save' }).click()]);
    expect((await app.ctx.catalog.get('flux-1-1-pro'))!.priceMicro).toBe(4_750_000);
    await page.goto(`${origin}/console/models?q=veo`);
    await expect(page.getByText('veo-3-fast:audio').count()).resolves.toBe(1);
    await shot('models-1280');
  });

  it('shows providers with their routes and runs providers check', async () => {
    await page.goto(`${origin}/console/providers`);
    await expect(page.getByText('seedream-4').count()).resolves.toBeGreaterThan(0);
    // The account's health state comes from the provider pool (as GET /admin/providers shows it);
    // the built-in simulator, which has no account, shows none.
    const row = (name: string) =>
      page.locator('tr').filter({ has: page.locator('strong', { hasText: new RegExp(`^${name}$`) }) });
    await expect(row('sim').locator('.badge').innerText()).resolves.toBe('up');
    await expect(row('simulator').locator('.badge').count()).resolves.toBe(0);
    await page.getByRole('button', { name: 'Run providers check' }).click();
    await expect(page.locator('[data-check-results]').count()).resolves.toBe(1);
    await shot('providers-1280');
  });

  it('finds a task by id across accounts and redelivers its webhook; the undelivered list', async () => {
    await page.goto(`${origin}/console/tasks`);
    await page.getByLabel('Task id').fill(taskId);
    await submit('Find', new RegExp(`/console/tasks/${taskId}$`));
    await expect(page.getByText('flux-1-1-pro').count()).resolves.toBeGreaterThan(0);
    const timeline = (await page.locator('.timeline').textContent()) ?? '';
    for (const step of ['created (pending)', 'hold', 'processing', 'capture', 'completed', 'webhook queued'])
      expect(timeline, step).toContain(step);
    await shot('task-1280');
    await page.goto(`${origin}/console/webhooks`);
    await expect(page.getByText('undelivered').count()).resolves.toBeGreaterThan(0);
    await shot('webhooks-1280');
    await submit('Redeliver', /\/console\/webhooks\?done=redelivered/);
    const row = await app.ctx.storage.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('task_id', '=', taskId)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('pending');
  });

  it('turns maintenance on and off', async () => {
    await page.goto(`${origin}/console/maintenance`);
    await submit('Turn maintenance on', /done=maintenance_on/);
    await expect(page.getByText('Maintenance is on: the API answers 503').count()).resolves.toBe(1);
    const api = await fetch(`${origin}/v1/models`, { headers: owner.auth });
    expect(api.status).toBe(503);
    await shot('maintenance-1280');
    await submit('Turn maintenance off', /done=maintenance_off/);
    expect(await app.ctx.maintenance.isEnabled()).toBe(false);
  });

  it('draws the margin chart and highlights the model sold below cost', async () => {
    await page.goto(`${origin}/console/margin`);
    await page.waitForSelector('.chart[data-drawn="3"]');
    await expect(page.locator('tr[data-below-cost]').count()).resolves.toBe(1);
    await expect(page.locator('[data-below-cost-models]').textContent()).resolves.toContain('seedream-4');
    await shot('margin-1280');
  });

  it('records every change in the operator audit log', async () => {
    await page.goto(`${origin}/console/audit`);
    for (const action of [
      'account.coefficient_changed',
      'key.created',
      'key.topup',
      'key.adjusted',
      'model.updated',
      'providers.checked',
      'webhook.redelivered',
      'maintenance.on',
    ])
      await expect(page.getByText(action, { exact: true }).count(), action).resolves.toBeGreaterThan(0);
    await shot('audit-1280');
  });

  it('every page fits 390 px without sideways scrolling', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const url of [
      '/console/tasks',
      '/console/accounts',
      '/console/accounts/700100',
      '/console/models',
      '/console/providers',
      `/console/tasks/${taskId}`,
      '/console/webhooks',
      '/console/maintenance',
      '/console/margin',
      '/console/audit',
    ]) {
      await page.goto(`${origin}${url}`);
      if (url === '/console/margin') await page.waitForSelector('.chart[data-drawn]');
      const width = await page.evaluate(
        () => (globalThis as any).document.documentElement.scrollWidth as number,
      );
      expect(width, url).toBeLessThanOrEqual(390);
      await shot(
        `${
          url
            .replace(/\/console\/?/, '')
            .replace(/[^a-z0-9]+/gi, '-')
            .slice(0, 40) || 'home'
        }-390`,
      );
    }
  });
});

// Money in: the top-ups list with a filter, a refused refund (no confirmation is blocked by the
// browser; too much is refused by the server on the page), a partial refund shown on its row, and
// codes created and shown once; both pages at 1280 and 390 px, screenshots in test-results/console/.
describe.skipIf(!HAVE_BROWSER)('money in on the console in a browser', () => {
  let h: PaymentsHarness;
  let browser: Browser;
  let origin: string;
  let page: Page;
  let paidId: string;
  const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    h = await paymentsHarness('sqlite');
    for (const [amount, paid] of [
      [500, true],
      [250, false],
    ] as const) {
      const res = await h.app.http.inject({
        method: 'POST',
        url: '/me/topups',
        headers: h.key.auth,
        payload: { amount_rub: amount, method: 'yookassa' },
      });
      const id = res.json().id as string;
      if (!paid) continue;
      paidId = id;
      const payment = [...h.yookassa.payments.values()].find((p) => p.metadata.topup_id === id)!;
      h.yookassa.succeed(payment.id);
      const method = h.app.ctx.payments.methods.get('yookassa')!;
      await h.app.ctx.payments.topups.apply(method, await method.readPayment(payment.id), 'test');
    }
    origin = await listenOnLoopback(h.app);
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    await page.goto(`${origin}/console`);
    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await Promise.all([
      page.waitForURL(/\/console\/accounts$/),
      page.getByRole('button', { name: 'Sign in' }).click(),
    ]);
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await h?.dispose();
  });

  it('lists and filters top-ups, refuses too large a refund on the page, refunds part', async () => {
    await page.getByRole('link', { name: 'Top-ups' }).click();
    await page.waitForURL(/\/console\/topups$/);
    await expect(page.locator('[data-status]').count()).resolves.toBe(2);
    await page.getByLabel('Status').selectOption('succeeded');
    await Promise.all([
      page.waitForURL(/status=succeeded/),
      page.getByRole('button', { name: 'Filter' }).click(),
    ]);
    await expect(page.locator('[data-status]').count()).resolves.toBe(1);

    const form = page.getByRole('form', { name: `Refund ${paidId}` });
    await page.getByText('Refund', { exact: true }).first().click();
    await form.getByLabel(/Amount/).fill('600');
    await form.getByLabel(/Pay this back/).check();
    await form.getByRole('button', { name: 'Refund' }).click();
    await page.waitForSelector('.flash');
    await expect(page.getByText(/Not refunded: amount_rub must be/).count()).resolves.toBe(1);
    await shot('topups-refused-1280');

    const again = page.getByRole('form', { name: `Refund ${paidId}` });
    await page.getByText('Refund', { exact: true }).first().click();
    await again.getByLabel(/Amount/).fill('200');
    await again.getByLabel(/Pay this back/).check();
    await Promise.all([
      page.waitForURL(/done=refunded/),
      again.getByRole('button', { name: 'Refund' }).click(),
    ]);
    // The filter is kept: the refunded top-up is now under status=refunded.
    await expect(page.getByText('Refund made').count()).resolves.toBe(1);
    await page.goto(`${origin}/console/topups?status=refunded`);
    await expect(page.locator('[data-refund]').count()).resolves.toBe(1);
    await expect(page.locator(`[data-status="${paidId}"]`).textContent()).resolves.toContain('refunded');
    expect(Number((await h.app.ctx.storage.keys.balanceOf(h.key.keyId))!.balance)).toBe(300_000_000);
    await shot('topups-1280');
  });

  it('creates codes shown once and lists them', async () => {
    await page.getByRole('link', { name: 'Codes' }).click();
    await page.getByLabel('Amount, ₽').fill('100');
    await page.getByLabel(/Count/).fill('2');
    await Promise.all([page.waitForURL(/done=codes/), page.getByRole('button', { name: 'Create' }).click()]);
    const codes = (await page.locator('[data-new-codes]').textContent())!.split('\n');
    expect(codes).toHaveLength(2);
    await expect(page.locator('[data-code-state]').count()).resolves.toBe(2);
    await shot('codes-1280');
    await page.reload();
    await expect(page.locator('[data-new-codes]').count()).resolves.toBe(0);
  });

  it('both pages fit 390 px without sideways scrolling', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const url of ['/console/topups', '/console/codes']) {
      await page.goto(`${origin}${url}`);
      const width = await page.evaluate(
        () => (globalThis as any).document.documentElement.scrollWidth as number,
      );
      expect(width, url).toBeLessThanOrEqual(390);
      await shot(`${url.replace('/console/', '')}-390`);
    }
  });
});
