// The status page in a real browser (headless Chromium) at a phone's width, after real tasks and
// chat requests: the figures on screen are the report's, nothing scrolls sideways, and the dark
// scheme is followed.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatusReport } from '../../../services/status.js';
import { startWorkerHeartbeat, type WorkerHeartbeat } from '../../../services/status-heartbeat.js';
import { WorkerHeartbeatsRepository } from '../../../storage/repositories/worker-heartbeats.js';
import { listenOnLoopback } from '../../../testing/app.js';
import { HAVE_BROWSER, launchBrowser } from '../../../testing/browser.js';
import { createTaskTestApp, generate, type TaskTestApp, waitForFinal } from '../../../testing/tasks.js';
import { formatRate, formatSeconds } from './page.js';

describe.skipIf(!HAVE_BROWSER)('the status page in a browser', () => {
  let app: TaskTestApp;
  let browser: Browser;
  let origin: string;
  let heartbeat: WorkerHeartbeat;
  let report: StatusReport;

  beforeAll(async () => {
    app = await createTaskTestApp();
    heartbeat = startWorkerHeartbeat(
      new WorkerHeartbeatsRepository(app.ctx.storage.db),
      app.ctx.clock,
      () => {},
    );
    const key = await app.newKey({ balanceRub: 1000 });
    const ids: string[] = [];
    // Image: 2 of 3 succeed; video: 1 of 2.
    for (const prompt of ['a fox', 'a heron [sim:delay=80]', 'a cat [sim:fail=overload]'])
      ids.push((await generate(app, key, { model_name: 'flux-1-1-pro', prompt })).json().task_id);
    for (const prompt of ['waves', 'waves [sim:fail=billing]'])
      ids.push((await generate(app, key, { model_name: 'seedance-2', prompt, duration: 5 })).json().task_id);
    for (const id of ids) await waitForFinal(app, key, id);
    const chat = await app.http.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: key.auth,
      payload: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello [sim:tokens=3]' }] },
    });
    expect(chat.statusCode).toBe(200);
    origin = await listenOnLoopback(app);
    report = (await (await fetch(`${origin}/status.json`)).json()) as StatusReport;
    browser = await launchBrowser();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await heartbeat?.stop();
    await app?.dispose();
  });

  async function open(colorScheme: 'light' | 'dark'): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme });
    const page = await context.newPage();
    const response = await page.goto(`${origin}/status`);
    expect(response?.status()).toBe(200);
    return page;
  }

  it('shows the real figures of each family and each component at 390 px', async () => {
    const page = await open('light');
    const families = Object.fromEntries(report.families.map((f) => [f.family, f]));
    expect(families.image).toMatchObject({ succeeded: 2, failed: 1, success_rate: 0.6667 });
    expect(families.video).toMatchObject({ succeeded: 1, failed: 1, success_rate: 0.5 });
    expect(families.text).toMatchObject({ succeeded: 1, failed: 0, success_rate: 1 });

    const figure = (family: string, name: string) =>
      page.locator(`[data-family="${family}"] [data-figure="${name}"]`).innerText();
    expect(await figure('image', 'success_rate')).toBe('66.7 %');
    expect(await figure('video', 'success_rate')).toBe('50.0 %');
    expect(await figure('text', 'success_rate')).toBe('100.0 %');
    for (const family of report.families) {
      expect(await figure(family.family, 'success_rate')).toBe(formatRate(family.success_rate));
      expect(await figure(family.family, 'median')).toBe(formatSeconds(family.median_seconds));
      expect(family.median_seconds).not.toBeNull();
    }
    expect(await figure('image', 'finished')).toBe('2 ok, 1 failed');

    const status = (id: string) => page.locator(`[data-component="${id}"] [data-status]`).innerText();
    expect(await status('api')).toBe('Operational');
    expect(await status('database')).toBe('Operational');
    expect(await status('workers')).toBe('Operational');
    expect(await page.locator('[data-component="workers"]').innerText()).toContain('1 live worker process');
    expect(await page.locator('[data-component="provider:simulator"]').innerText()).toContain(
      `${formatRate(report.components.find((c) => c.id === 'provider:simulator')?.last_hour?.success_rate ?? null)} succeeded of 6`,
    );
    expect(await page.locator('[data-overall]').innerText()).toBe(
      report.status === 'operational' ? 'All systems operational' : 'Some systems are degraded',
    );

    // Nothing is wider than the phone: no sideways scrolling.
    // (Expressions as text: the project's TypeScript has no DOM types.)
    const widths = await page.evaluate<{ scroll: number; client: number }>(
      '({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })',
    );
    expect(widths.scroll).toBeLessThanOrEqual(widths.client);
    // The family cards stack in one column at this width.
    const lefts = await page
      .locator('[data-family]')
      .evaluateAll((cards) => cards.map((card) => Math.round(card.getBoundingClientRect().left)));
    expect(new Set(lefts).size).toBe(1);
    await page.context().close();
  });

  it('follows the dark colour scheme', async () => {
    const background = async (page: Page) =>
      page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
    const light = await open('light');
    const dark = await open('dark');
    expect(await background(light)).toBe('rgb(247, 247, 248)');
    expect(await background(dark)).toBe('rgb(17, 19, 23)');
    await light.context().close();
    await dark.context().close();
  });
});
