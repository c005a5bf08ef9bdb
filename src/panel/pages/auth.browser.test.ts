// The panel's shell in a real browser (headless Chromium): sign in by link (the GET page, then its
// POST), two-factor on and off with real codes, sign-out (and the old cookie refused), a form
// without its CSRF token refused, no sideways scrolling at 390 px, the dark theme. Screenshots of
// each page (desktop and 390 px) go to test-results/panel/.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base32Decode, totp } from '../../domain/panel/totp.js';
import { createTestApp, listenOnLoopback, type TestApp, type TestKey } from '../../testing/app.js';
import { HAVE_BROWSER, launchBrowser } from '../../testing/browser.js';
import { loginLink } from '../../testing/panel.js';

const SHOTS = join(import.meta.dirname, '../../../test-results/panel');
const PAGES = ['/panel', '/panel/webhooks', '/panel/audit', '/panel/security'];

describe.skipIf(!HAVE_BROWSER)('the panel in a browser', () => {
  let app: TestApp;
  let owner: TestKey;
  let browser: Browser;
  let origin: string;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    app = await createTestApp();
    owner = await app.newKey({ balanceRub: 250, restrictions: { name: 'production key with a long name' } });
    await app.newKey({ messagingId: owner.messagingId, balanceRub: 5, restrictions: { name: 'staging' } });
    origin = await listenOnLoopback(app);
    browser = await launchBrowser();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.dispose();
  });

  async function newPage(options: { colorScheme?: 'light' | 'dark'; width?: number } = {}) {
    const context = await browser.newContext({
      viewport: { width: options.width ?? 1280, height: 900 },
      colorScheme: options.colorScheme ?? 'light',
    });
    const page = await context.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
    return { context, page };
  }

  /**
   * Opens a fresh link, sees the confirmation page, presses its button. First a HEAD on the link,
   * as a link preview does: it must leave the link usable.
   */
  async function signInByLink(page: Page): Promise<void> {
    const link = await loginLink(app, owner.messagingId);
    const preview = await fetch(`${origin}${link}`, { method: 'HEAD' });
    expect(preview.status).toBe(200);
    expect(preview.headers.get('set-cookie')).toBeNull();
    const shown = await page.goto(`${origin}${link}`);
    expect(shown?.status()).toBe(200);
    await expect(page.locator('h1').innerText()).resolves.toBe('Sign in to gengate');
    const width = page.viewportSize()?.width ?? 0;
    await page.screenshot({
      path: join(SHOTS, `sign-in-confirm-${width < 500 ? 390 : 'desktop'}.png`),
      fullPage: true,
    });
    await Promise.all([
      page.waitForURL(/\/panel(\/login\/code)?$/),
      page.getByRole('button', { name: 'Sign in' }).click(),
    ]);
  }

  const sessionCookie = async (context: BrowserContext) =>
    (await context.cookies()).find((c) => c.name === 'gengate_session');

  it('signs in by link, shows every page without sideways scrolling at 390 px, and signs out', async () => {
    const { context, page } = await newPage();
    await signInByLink(page);
    await expect(page.locator('h1').innerText()).resolves.toBe('Overview');
    const cookie = await sessionCookie(context);
    expect(cookie?.httpOnly).toBe(true);
    expect(cookie?.sameSite).toBe('Lax');

    for (const url of PAGES) {
      const res = await page.goto(`${origin}${url}`);
      expect(res?.status(), url).toBe(200);
      await page.screenshot({
        path: join(SHOTS, `${url.replace(/\W+/g, '-').slice(1) || 'overview'}-desktop.png`),
        fullPage: true,
      });
    }
    await page.setViewportSize({ width: 390, height: 844 });
    for (const url of PAGES) {
      await page.goto(`${origin}${url}`);
      const width = await page.evaluate<number>('document.documentElement.scrollWidth');
      expect(width, url).toBeLessThanOrEqual(390);
      await page.screenshot({
        path: join(SHOTS, `${url.replace(/\W+/g, '-').slice(1) || 'overview'}-390.png`),
        fullPage: true,
      });
    }

    // Sign out from the top bar: the form posts (no 415), the session ends, the old cookie is refused.
    await page.goto(`${origin}/panel`);
    const response = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/panel/logout')),
      page.getByRole('button', { name: 'Sign out', exact: true }).click(),
    ]);
    expect(response[0].status()).toBe(200);
    await expect(page.locator('h1').innerText()).resolves.toBe('Signed out');
    expect(await sessionCookie(context)).toBeUndefined();
    const replay = await browser.newContext();
    if (cookie) await replay.addCookies([cookie]);
    const replayPage = await replay.newPage();
    const again = await replayPage.goto(`${origin}/panel`);
    expect(again?.status()).toBe(401);
    await replayPage.screenshot({ path: join(SHOTS, 'sign-in-desktop.png'), fullPage: true });
    await replay.close();
    await context.close();
  }, 120_000);

  it('refuses a form whose CSRF token was removed, and changes nothing', async () => {
    const { context, page } = await newPage();
    await signInByLink(page);
    await page.goto(`${origin}/panel/webhooks`);
    const before = (await app.ctx.storage.accounts.byId(owner.accountId))?.webhook_secret;
    await page.evaluate(
      `document.querySelector('form[action="/panel/webhooks/rotate"] input[name="_csrf"]').remove()`,
    );
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/panel/webhooks/rotate')),
      page.getByRole('button', { name: 'Rotate secret' }).click(),
    ]);
    expect(response.status()).toBe(403);
    await expect(page.locator('h1').innerText()).resolves.toBe('Form expired');
    expect((await app.ctx.storage.accounts.byId(owner.accountId))?.webhook_secret).toBe(before);
    await context.close();
  }, 60_000);

  it('turns on two-factor authentication, signs in again with a computed code, and turns it off', async () => {
    const { context, page } = await newPage();
    await signInByLink(page);
    await page.goto(`${origin}/panel/security`);
    await page.getByRole('button', { name: 'Set up two-factor authentication' }).click();
    await page.waitForSelector('[data-totp-secret]');
    expect(await page.locator('.qr svg').count()).toBe(1);
    await page.screenshot({ path: join(SHOTS, 'security-2fa-setup-desktop.png'), fullPage: true });
    const secret = await page.locator('[data-totp-secret]').innerText();
    const key = base32Decode(secret) ?? Buffer.alloc(0);
    await page.locator('input[name="code"]').fill(totp(key, Date.now()));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.waitForSelector('.codes');
    const recovery = await page.locator('.codes code').allInnerTexts();
    expect(recovery).toHaveLength(10);

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForSelector('text=Signed out');

    // The link now leads to the code step; the code of the next time step (the current one was
    // spent by the confirmation) is within the accepted window.
    await signInByLink(page);
    expect(new URL(page.url()).pathname).toBe('/panel/login/code');
    await page.screenshot({ path: join(SHOTS, 'sign-in-code-desktop.png'), fullPage: true });
    await page.locator('input[name="code"]').fill(totp(key, Date.now() + 30_000));
    await Promise.all([page.waitForURL(/\/panel$/), page.getByRole('button', { name: 'Sign in' }).click()]);
    await expect(page.locator('h1').innerText()).resolves.toBe('Overview');

    await page.goto(`${origin}/panel/security`);
    await page.locator('form[action="/panel/security/2fa/disable"] input[name="code"]').fill(recovery[0]);
    await page.getByRole('button', { name: 'Turn off' }).click();
    await page.waitForSelector('text=Two-factor authentication is off.');
    await context.close();
  }, 120_000);

  it('follows the dark system theme, and the toggle overrides it across reloads', async () => {
    const { context, page } = await newPage({ colorScheme: 'dark', width: 390 });
    await signInByLink(page);
    const background = () => page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
    expect(await background()).toBe('rgb(15, 18, 22)');
    await page.screenshot({ path: join(SHOTS, 'overview-dark-390.png'), fullPage: true });
    await page.getByRole('button', { name: /Switch between light and dark/ }).click();
    expect(await background()).toBe('rgb(246, 247, 249)');
    await page.reload();
    expect(await background()).toBe('rgb(246, 247, 249)');
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await context.close();
  }, 60_000);
});
