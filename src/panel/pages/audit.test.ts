// The Audit page: 90 days, filters (action, key, dates), paging, details in words, CSV; one account's
// log only, whatever the query asks for.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestKey } from '../../testing/app.js';
import { ENGINES } from '../../testing/db.js';
import { getPage, signIn } from '../../testing/panel.js';

const DAY = 24 * 3600 * 1000;

describe.each(ENGINES)('panel audit log on %s', (engine) => {
  let app: TestApp;
  let owner: TestKey;
  let second: TestKey;
  let stranger: TestKey;
  let cookie: string;

  beforeAll(async () => {
    app = await createTestApp({ engine });
    owner = await app.newKey({ balanceRub: 12.5, restrictions: { name: 'prod' } });
    second = await app.newKey({
      messagingId: owner.messagingId,
      balanceRub: 0,
      restrictions: { name: 'staging' },
    });
    stranger = await app.newKey({ balanceRub: 99, restrictions: { name: 'not-yours' } });
    const now = Date.now();
    const append = (accountId: number, action: string, details: unknown, at: number) =>
      app.ctx.storage.audit.append({ accountId, actor: 'test', action, details, ip: '192.0.2.1', now: at });
    // Appended oldest first, as a real log is: one entry older than 90 days, then 60 restriction
    // changes on `second` spread over the last 60 days.
    await append(
      owner.accountId,
      'key.topup',
      { key_id: owner.keyId, amount_micro: 5_000_000 },
      now - 100 * DAY,
    );
    for (let i = 59; i >= 0; i--) {
      await append(
        owner.accountId,
        'key.restrictions_changed',
        { key_id: second.keyId, rate_limit_per_min: i },
        now - i * DAY - 1000,
      );
    }
    await append(
      stranger.accountId,
      'key.topup',
      { key_id: stranger.keyId, amount_micro: 7_000_000 },
      now - 1000,
    );
    cookie = await signIn(app, owner.messagingId);
  });
  afterAll(() => app.dispose());

  const rowsOf = (html: string) => (html.match(/<tr><td/g) ?? []).length;

  it('shows details in words, with rubles and key names, never micro-rubles JSON', async () => {
    const html = await getPage(app, `/panel/audit?action=key.topup`, cookie);
    expect(html).toContain('Top-up');
    expect(html).toContain('amount 12.50 ₽');
    expect(html).toContain('“prod”');
    expect(html).not.toContain('amount_micro');
    expect(html).not.toContain('12500000');
  });

  it('pages newest first through the whole 90 days, and no further', async () => {
    const first = await getPage(app, '/panel/audit?action=key.restrictions_changed', cookie);
    expect(rowsOf(first)).toBe(50);
    expect(first).toContain('requests per minute: 0');
    const older = /href="(\/panel\/audit\?[^"]*before=\d+)"/.exec(first)?.[1]?.replace(/&amp;/g, '&');
    expect(older).toBeDefined();
    const second = await getPage(app, older ?? '', cookie);
    expect(rowsOf(second)).toBe(10);
    expect(second).toContain('requests per minute: 59');
    expect(second).not.toContain('before=');
    // The 100-day-old top-up is past retention.
    expect(await getPage(app, '/panel/audit?action=key.topup', cookie)).not.toContain('5.00 ₽');
  });

  it('filters by key and by UTC date range (both days included)', async () => {
    const byKey = await getPage(app, `/panel/audit?key=${owner.keyId}`, cookie);
    expect(byKey).toContain('Top-up');
    expect(byKey).not.toContain('Key restrictions changed</td>');
    const day = (offset: number) => new Date(Date.now() - offset * DAY - 1000).toISOString().slice(0, 10);
    const range = await getPage(
      app,
      `/panel/audit?action=key.restrictions_changed&from=${day(12)}&to=${day(10)}`,
      cookie,
    );
    expect(rowsOf(range)).toBe(3);
    expect(range).toContain('requests per minute: 10');
    expect(range).toContain('requests per minute: 12');
  });

  it('refuses a malformed date with a message instead of misfiltering', async () => {
    const res = await app.http.inject({
      method: 'GET',
      url: '/panel/audit?from=2026-02-30',
      headers: { cookie },
    });
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain('date like');
  });

  it('never shows another account’s entries, even when asked for its key', async () => {
    const all = await getPage(app, '/panel/audit', cookie);
    expect(all).not.toContain('not-yours');
    expect(all).not.toContain('7.00 ₽');
    const guessed = await getPage(app, `/panel/audit?key=${stranger.keyId}`, cookie);
    expect(rowsOf(guessed)).toBe(0);
    const csv = await app.http.inject({
      method: 'GET',
      url: `/panel/audit.csv?key=${stranger.keyId}`,
      headers: { cookie },
    });
    expect(csv.body.trim().split('\r\n')).toHaveLength(1);
  });

  it('exports the filtered log as CSV', async () => {
    const res = await app.http.inject({
      method: 'GET',
      url: '/panel/audit.csv?action=key.restrictions_changed',
      headers: { cookie },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    expect(res.headers['content-disposition']).toMatch(
      /attachment; filename="gengate-audit-\d{4}-\d{2}-\d{2}\.csv"/,
    );
    const lines = res.body
      .replace(/^\ufeff/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe('time_utc,action,description,actor,ip,details,details_json');
    expect(lines).toHaveLength(61);
    expect(lines[1]).toContain('key.restrictions_changed,Key restrictions changed,test,192.0.2.1');
    expect(lines[1]).toContain('requests per minute: 0');
    const topup = await app.http.inject({
      method: 'GET',
      url: '/panel/audit.csv?action=key.topup',
      headers: { cookie },
    });
    expect(topup.body).toContain('amount 12.50 ₽');
  });

  it('needs a session', async () => {
    expect((await app.http.inject({ method: 'GET', url: '/panel/audit' })).statusCode).toBe(401);
    expect((await app.http.inject({ method: 'GET', url: '/panel/audit.csv' })).statusCode).toBe(401);
  });
});
