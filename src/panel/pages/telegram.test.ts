// Sign-in with the Telegram Login Widget: the payload is checked as Telegram documents, the
// Telegram id is the account's messaging_id, an unknown id is refused and never created.
import { createHash, createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../config.js';
import { createTestApp, type TestApp, type TestKey } from '../../testing/app.js';
import { cookieFrom, form, getPage } from '../../testing/panel.js';

const BOT_TOKEN = '7000001:AAE-test-token_abcdefghijklmnopqrstu';

/** Signed the way Telegram signs: HMAC-SHA-256 of the sorted data-check-string, keyed by SHA-256(token). */
function signed(fields: Record<string, string>, token = BOT_TOKEN): Record<string, string> {
  const check = Object.keys(fields)
    .sort()
    .map((k) => `${k}=${fields[k]}`)
    .join('\n');
  const key = createHash('sha256').update(token).digest();
  return { ...fields, hash: createHmac('sha256', key).update(check).digest('hex') };
}

const now = () => String(Math.floor(Date.now() / 1000));

describe('Telegram sign-in', () => {
  let app: TestApp;
  let owner: TestKey;

  beforeAll(async () => {
    app = await createTestApp({
      env: { TELEGRAM_BOT_TOKEN: BOT_TOKEN, TELEGRAM_BOT_USERNAME: 'gengate_test_bot' },
    });
    owner = await app.newKey({ messagingId: 555_000_111 });
  });
  afterAll(() => app.dispose());

  const payload = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

  it('shows Telegram’s widget on the sign-in page, the only page whose CSP allows telegram.org', async () => {
    const res = await app.http.inject({ method: 'GET', url: '/panel' });
    expect(res.statusCode).toBe(401);
    expect(res.body).toContain('src="https://telegram.org/js/telegram-widget.js?22"');
    expect(res.body).toContain('data-telegram-login="gengate_test_bot"');
    // Write access: the bot may then send the owner's low-balance notices.
    expect(res.body).toContain('data-request-access="write"');
    expect(res.body).toContain('data-auth-url="http://127.0.0.1:8080/panel/telegram"');
    expect(res.headers['content-security-policy']).toContain("script-src 'self' https://telegram.org");
    expect(res.headers['content-security-policy']).toContain('frame-src https://oauth.telegram.org');
  });

  it('a correct payload: GET confirms and changes nothing, POST signs in as the account of that id', async () => {
    const fields = signed({
      id: String(owner.messagingId),
      first_name: 'Ada',
      username: 'ada',
      auth_date: now(),
    });
    const get = await app.http.inject({ method: 'GET', url: `/panel/telegram?${payload(fields)}` });
    expect(get.statusCode).toBe(200);
    expect(get.headers['set-cookie']).toBeUndefined();
    expect(get.body).toContain('@ada');
    expect(get.body).toContain('action="/panel/telegram"');
    expect(get.headers['content-security-policy']).not.toContain('telegram.org');

    const post = await app.http.inject({ method: 'POST', url: '/panel/telegram', ...form(fields) });
    expect(post.statusCode).toBe(303);
    expect(post.headers.location).toBe('/panel');
    const cookie = cookieFrom(post.headers, 'gengate_session') ?? '';
    expect(await getPage(app, '/panel', cookie)).toContain(`Account ${owner.messagingId}`);
    const login = await app.ctx.storage.db
      .selectFrom('audit_log')
      .select('details')
      .where('account_id', '=', owner.accountId)
      .where('action', '=', 'panel.login')
      .executeTakeFirst();
    expect(JSON.parse(login?.details ?? '{}')).toEqual({ method: 'telegram' });
  });

  it('refuses a wrong hash and an old auth_date', async () => {
    const good = signed({ id: String(owner.messagingId), auth_date: now() });
    const wrongHash = { ...good, hash: createHash('sha256').update('x').digest('hex') };
    const otherBot = signed(
      { id: String(owner.messagingId), auth_date: now() },
      '7000002:AAE-another_token_abcdefghijklm',
    );
    const old = signed({
      id: String(owner.messagingId),
      auth_date: String(Math.floor(Date.now() / 1000) - 3600),
    });
    const tampered = { ...good, id: String(owner.messagingId + 1) };
    for (const fields of [wrongHash, otherBot, old, tampered]) {
      expect(
        (await app.http.inject({ method: 'GET', url: `/panel/telegram?${payload(fields)}` })).statusCode,
      ).toBe(401);
      const post = await app.http.inject({ method: 'POST', url: '/panel/telegram', ...form(fields) });
      expect(post.statusCode).toBe(401);
      expect(post.headers['set-cookie']).toBeUndefined();
    }
  });

  it('refuses a Telegram id without an account and creates none', async () => {
    const before = await app.ctx.storage.accounts.count();
    const stranger = signed({ id: '999888777', username: 'mallory', auth_date: now() });
    expect(
      (await app.http.inject({ method: 'GET', url: `/panel/telegram?${payload(stranger)}` })).statusCode,
    ).toBe(403);
    const post = await app.http.inject({ method: 'POST', url: '/panel/telegram', ...form(stranger) });
    expect(post.statusCode).toBe(403);
    expect(post.headers['set-cookie']).toBeUndefined();
    expect(await app.ctx.storage.accounts.count()).toBe(before);
    expect(await app.ctx.storage.accounts.byMessagingId(999888777)).toBeUndefined();
    const failed = await app.ctx.storage.db
      .selectFrom('audit_log')
      .select('details')
      .where('action', '=', 'panel.login_failed')
      .orderBy('id', 'desc')
      .executeTakeFirst();
    expect(JSON.parse(failed?.details ?? '{}')).toEqual({
      reason: 'telegram_unknown_account',
      telegram_id: 999888777,
    });
  });
});

describe('Telegram sign-in, not configured', () => {
  it('has no widget, no telegram.org in the CSP and no /panel/telegram route', async () => {
    const app = await createTestApp();
    try {
      const res = await app.http.inject({ method: 'GET', url: '/panel' });
      expect(res.body).not.toContain('telegram.org');
      expect(res.headers['content-security-policy']).not.toContain('telegram');
      expect((await app.http.inject({ method: 'GET', url: '/panel/telegram?id=1' })).statusCode).toBe(404);
    } finally {
      await app.dispose();
    }
  });
});

describe('Telegram settings', () => {
  it('need both the token and the bot username, each well-formed', () => {
    const load = (env: Record<string, string>) => () => loadConfig({ NODE_ENV: 'test', ...env });
    expect(load({ TELEGRAM_BOT_TOKEN: BOT_TOKEN })).toThrow(/TELEGRAM_BOT_USERNAME must be set/);
    expect(load({ TELEGRAM_BOT_TOKEN: 'nope', TELEGRAM_BOT_USERNAME: 'gengate_bot' })).toThrow(ConfigError);
    expect(load({ TELEGRAM_BOT_TOKEN: BOT_TOKEN, TELEGRAM_BOT_USERNAME: 'a b' })).toThrow(
      /TELEGRAM_BOT_USERNAME must be/,
    );
    const config = loadConfig({
      NODE_ENV: 'test',
      TELEGRAM_BOT_TOKEN: BOT_TOKEN,
      TELEGRAM_BOT_USERNAME: '@gengate_bot',
    });
    expect(config.telegramBotUsername).toBe('gengate_bot');
    expect(loadConfig({ NODE_ENV: 'test' }).telegramBotToken).toBeUndefined();
  });
});
