// /docs in a real browser: the swagger UI loads the document, the Authorize dialog takes an API key,
// and "Try it out" on POST /generate shows the example body and executes it: 202, a task that runs.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAVE_BROWSER, launchBrowser } from '../../testing/browser.js';
import {
  createTaskTestApp,
  expectLedgerClean,
  freePort,
  type TaskTestApp,
  waitForFinal,
} from '../../testing/tasks.js';

describe.skipIf(!HAVE_BROWSER)('/docs (swagger UI) in a browser', () => {
  let app: TaskTestApp;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await createTaskTestApp({ config: { port, publicUrl: base } });
    await app.http.listen({ host: '127.0.0.1', port });
    browser = await launchBrowser();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    if (app) {
      await expectLedgerClean(app);
      await app.dispose();
    }
  });

  it('authorizes with a key and executes POST /generate from its example: 202', async () => {
    const key = await app.newKey({ balanceRub: 1000 });
    const page = await browser.newPage();
    // The UI reports a document it cannot read (bad $ref, resolver errors) on the console.
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    try {
      await page.goto(`${base}/docs`);
      const operation = page.locator('#operations-tasks-createTask');
      await operation.waitFor({ timeout: 20_000 });

      // Authorize: the API key scheme's bearer field.
      await page.locator('button.authorize').first().click();
      const scheme = page.locator('.auth-container').filter({ hasText: 'apiKey' });
      await scheme.locator('input').fill(key.secret);
      await scheme.locator('button.authorize').click();
      await page.locator('.auth-btn-wrapper button.btn-done, button.close-modal').first().click();

      await operation.locator('.opblock-summary').first().click();
      const tryItOut = operation.locator('button.try-out__btn');
      if ((await tryItOut.count()) > 0 && (await tryItOut.innerText()).includes('Try it out'))
        await tryItOut.click();

      // The body editor holds the first model's example.
      const editor = operation.locator('textarea.body-param__text');
      await editor.waitFor({ timeout: 10_000 });
      const example = JSON.parse(await editor.inputValue());
      expect(example).toEqual({ params: { model_name: 'seedance-2', prompt: 'a lighthouse at dawn' } });
      // The examples menu offers every media model.
      const options = await operation
        .locator('.opblock-section-request-body .examples-select select option')
        .allInnerTexts();
      expect(options.join(' ')).toContain('gpt-image-1');

      await operation.locator('button.execute').click();
      const live = operation.locator('.live-responses-table tr.response');
      await live.waitFor({ timeout: 15_000 });
      expect((await live.locator('.response-col_status').innerText()).trim()).toBe('202');
      const body = await live.locator('.response-col_description .microlight').first().innerText();
      const answer = JSON.parse(body) as { task_id: string };
      const task = await waitForFinal(app, key, answer.task_id, 20_000);
      expect(task.status).toBe('completed');
      expect(await page.locator('.errors-wrapper').count()).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  }, 90_000);
});
