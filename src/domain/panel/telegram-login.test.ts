import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { dataCheckString, telegramFields, verifyTelegramLogin } from './telegram-login.js';

const BOT_TOKEN = '123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11';
const NOW = 1_764_000_000_000;

/** Signed independently of the code under test, exactly as Telegram's documentation describes. */
function signed(fields: Record<string, string>, token = BOT_TOKEN): Record<string, string> {
  const check = Object.entries(fields)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('\n');
  const key = createHash('sha256').update(token).digest();
  return { ...fields, hash: createHmac('sha256', key).update(check).digest('hex') };
}

const base = { id: '42', first_name: 'Ada', username: 'ada', auth_date: String(NOW / 1000 - 30) };

describe('Telegram login payload', () => {
  it('builds the data-check-string from every field but hash, sorted, newline-separated', () => {
    expect(dataCheckString({ username: 'u', id: '1', hash: 'x', auth_date: '5' })).toBe(
      'auth_date=5\nid=1\nusername=u',
    );
  });

  it('accepts a correctly signed, fresh payload', () => {
    expect(verifyTelegramLogin(signed(base), BOT_TOKEN, NOW, 600)).toEqual({
      ok: true,
      telegramId: 42,
      username: 'ada',
      firstName: 'Ada',
    });
  });

  it('refuses a wrong hash, a changed field and another bot token', () => {
    const good = signed(base);
    const flipped = good.hash.replace(/^./, (c) => (c === '0' ? '1' : '0'));
    expect(verifyTelegramLogin({ ...good, hash: flipped }, BOT_TOKEN, NOW, 600)).toEqual({
      ok: false,
      reason: 'bad_hash',
    });
    expect(verifyTelegramLogin({ ...good, id: '43' }, BOT_TOKEN, NOW, 600)).toEqual({
      ok: false,
      reason: 'bad_hash',
    });
    expect(verifyTelegramLogin(signed(base, '999:other'), BOT_TOKEN, NOW, 600)).toEqual({
      ok: false,
      reason: 'bad_hash',
    });
  });

  it('refuses an old auth_date and one far in the future, even when signed', () => {
    const old = signed({ ...base, auth_date: String(NOW / 1000 - 601) });
    expect(verifyTelegramLogin(old, BOT_TOKEN, NOW, 600)).toEqual({ ok: false, reason: 'expired' });
    const future = signed({ ...base, auth_date: String(NOW / 1000 + 3600) });
    expect(verifyTelegramLogin(future, BOT_TOKEN, NOW, 600)).toEqual({ ok: false, reason: 'from_future' });
  });

  it('refuses payloads without id, auth_date or a well-formed hash', () => {
    const good = signed(base);
    for (const missing of ['id', 'auth_date', 'hash']) {
      const { [missing]: _, ...rest } = good;
      expect(verifyTelegramLogin(rest, BOT_TOKEN, NOW, 600)).toEqual({ ok: false, reason: 'missing_fields' });
    }
    expect(verifyTelegramLogin({ ...good, hash: 'zz' }, BOT_TOKEN, NOW, 600)).toEqual({
      ok: false,
      reason: 'missing_fields',
    });
  });

  it('checks every received field: a new signed field passes, an appended unsigned one fails', () => {
    const withPhoto = signed({ ...base, photo_url: 'https://t.me/i/userpic/320/a.jpg' });
    expect(
      verifyTelegramLogin(telegramFields(new URLSearchParams(withPhoto)) ?? {}, BOT_TOKEN, NOW, 600).ok,
    ).toBe(true);
    const appended = telegramFields(new URLSearchParams({ ...signed(base), utm_source: 'x' })) ?? {};
    expect(verifyTelegramLogin(appended, BOT_TOKEN, NOW, 600)).toEqual({ ok: false, reason: 'bad_hash' });
    expect(telegramFields(new URLSearchParams('id=1&id=2'))).toBeUndefined();
    expect(telegramFields(new URLSearchParams('Bad-Name=1'))).toBeUndefined();
  });
});
