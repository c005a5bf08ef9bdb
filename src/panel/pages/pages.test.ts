// Route tests of the feature pages (keys, money, analytics, tasks) through the real sign-in: what an
// owner can do, that the API obeys a change at once, that every form needs its CSRF token, and that
// account A reaches none of account B's keys, ledger, tasks or deliveries, whatever the ids.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestKey } from '../../testing/app.js';
import { cookieFrom, csrfOf, getPage, postForm, signIn } from '../../testing/panel.js';
import { recordChatUsage } from '../../testing/storage-fixtures.js';
import { createTaskTestApp, generate, type TaskTestApp, waitForFinal } from '../../testing/tasks.js';

describe('panel feature pages', () => {
  let app: TaskTestApp;
  let owner: TestKey;
  let stranger: TestKey;
  let cookie: string;
  let csrf: string;

  beforeAll(async () => {
    app = await createTaskTestApp();
    owner = await app.newKey({ balanceRub: 100, restrictions: { name: 'prod' } });
    stranger = await app.newKey({ balanceRub: 50, restrictions: { name: 'not-yours' } });
    cookie = await signIn(app, owner.messagingId);
    csrf = csrfOf(await getPage(app, '/panel/keys', cookie));
  }, 60_000);
  afterAll(() => app.dispose());

  const post = (url: string, fields: Record<string, string | string[]>, ip?: string, withCsrf = true) => {
    const body = new URLSearchParams();
    if (withCsrf) body.append('_csrf', csrf);
    for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) body.append(k, one);
    return app.http.inject({
      method: 'POST',
      url,
      payload: body.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      remoteAddress: ip,
    });
  };
  const keyRow = (id: number) => app.ctx.storage.keys.byIdForOperator(id);
  const auditActions = async (accountId: number) =>
    (await app.ctx.storage.audit.listForAccount(accountId, 200)).map((a) => a.action);

  /** Creates a key through the page and returns its id and the full value it showed once. */
  async function createKey(name: string): Promise<{ id: number; secret: string }> {
    const res = await post('/panel/keys', { name });
    expect(res.statusCode).toBe(303);
    const location = String(res.headers.location);
    expect(location).toMatch(/^\/panel\/keys\/\d+\?done=created$/);
    const reveal = cookieFrom(res.headers, 'gengate_new_key')!;
    const shown = await app.http.inject({
      method: 'GET',
      url: location,
      headers: { cookie: `${cookie}; ${reveal}` },
    });
    const secret = /data-new-key>(sk_live_[0-9A-Za-z]+)</.exec(shown.body)?.[1];
    expect(secret).toBeDefined();
    // The same answer clears the cookie: a reload shows the key masked.
    expect(String(shown.headers['set-cookie'])).toContain('gengate_new_key=;');
    return { id: Number(location.split('/')[3].split('?')[0]), secret: secret! };
  }

  describe('keys', () => {
    it('lists the owner keys masked with balance, held, restrictions and last use; never another account’s', async () => {
      const html = await getPage(app, '/panel/keys', cookie);
      expect(html).toContain('prod (#');
      expect(html).toContain('100.00 ₽');
      expect(html).toContain('sk_live_');
      expect(html).not.toContain(owner.secret);
      expect(html).not.toContain('not-yours');
      expect(html).toContain('Last request');
    });

    it('creates a key, shows it in full once, then masked; the key works with the API', async () => {
      const { id, secret } = await createKey('fresh');
      const again = await getPage(app, `/panel/keys/${id}`, cookie);
      expect(again).not.toContain(secret);
      expect(again).toContain(`${secret.slice(0, 12)}…${secret.slice(-4)}`);
      const me = await app.http.inject({
        method: 'GET',
        url: '/me/balance',
        headers: { authorization: `Bearer ${secret}` },
      });
      expect(me.statusCode).toBe(200);
      expect((await keyRow(id))?.account_id).toBe(owner.accountId);
      expect(await auditActions(owner.accountId)).toContain('key.created');
    });

    it('the reveal cookie of one key never shows on another key’s page', async () => {
      const res = await post('/panel/keys', { name: 'x' });
      const reveal = cookieFrom(res.headers, 'gengate_new_key')!;
      const other = await app.http.inject({
        method: 'GET',
        url: `/panel/keys/${owner.keyId}`,
        headers: { cookie: `${cookie}; ${reveal}` },
      });
      expect(other.body).not.toContain(reveal.split('=')[1]);
    });

    it('renames, audited', async () => {
      const res = await post(`/panel/keys/${owner.keyId}/rename`, { name: 'production' });
      expect(res.statusCode).toBe(303);
      expect((await keyRow(owner.keyId))?.name).toBe('production');
      expect(await auditActions(owner.accountId)).toContain('key.renamed');
      await post(`/panel/keys/${owner.keyId}/rename`, { name: 'prod' });
    });

    it('restricts models and IPs (the caller’s address offered), and the API obeys at once', async () => {
      const key = await app.newKey({ messagingId: owner.messagingId, balanceRub: 10 });
      // Warm the auth cache: the change must evict it, not wait for its TTL.
      expect(
        (await app.http.inject({ method: 'GET', url: '/me/balance', headers: key.auth })).statusCode,
      ).toBe(200);
      const page = await getPage(app, `/panel/keys/${key.keyId}`, cookie);
      // The caller's address (inject's default remote address) is offered.
      expect(page).toContain('Add my current address <code>127.0.0.1</code>');
      const res = await post(
        `/panel/keys/${key.keyId}/restrictions`,
        { models_mode: 'some', model: ['gpt-4o-mini'], ips: '10.0.0.0/8', add_my_ip: '1', rate: '30' },
        '127.0.0.1',
      );
      expect(res.statusCode).toBe(303);
      expect(await keyRow(key.keyId)).toMatchObject({
        allowed_models: '["gpt-4o-mini"]',
        allowed_ip_cidrs: '["10.0.0.0/8","127.0.0.1"]',
        rate_limit_per_min: 30,
      });
      const refused = await generate(app, key, { model_name: 'flux-1-1-pro', prompt: 'a cat' });
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error.code).toBe('model_not_allowed');
      expect(await auditActions(owner.accountId)).toContain('key.restrictions_changed');
    });

    it.each([
      [{ models_mode: 'some', model: ['gpt-4o', 'no-such-model'] }, 'is not a model of the catalog'],
      [{ models_mode: 'some', model: ['veo-3-fast:audio'] }, 'is not a model of the catalog'],
      [{ models_mode: 'some' }, 'Tick at least one model'],
      [{ models_mode: 'all', ips: '10.0.0.300' }, 'is not an IPv4/IPv6 address or CIDR'],
      [{ models_mode: 'all', rate: '-5' }, 'rate_limit_per_min'],
    ])('refuses %j with the reason on the page, changing nothing', async (fields, reason) => {
      const before = await keyRow(owner.keyId);
      const res = await post(`/panel/keys/${owner.keyId}/restrictions`, fields as Record<string, string>);
      expect(res.statusCode).toBe(422);
      expect(res.body).toContain(reason.replace(/"/g, '&#34;'));
      expect(await keyRow(owner.keyId)).toEqual(before);
    });

    it('sets the expiry and the spend cap; the API applies them at once; a bad amount is refused', async () => {
      const key = await app.newKey({ balanceRub: 100, messagingId: owner.messagingId });
      expect(
        (await app.http.inject({ method: 'GET', url: '/me/balance', headers: key.auth })).statusCode,
      ).toBe(200);
      const page = await getPage(app, `/panel/keys/${key.keyId}`, cookie);
      expect(page).toContain(`action="/panel/keys/${key.keyId}/limits"`);
      const res = await post(`/panel/keys/${key.keyId}/limits`, {
        expires: '2099-12-31',
        spend_limit: '0,5',
        spend_period: 'week',
      });
      expect(res.statusCode).toBe(303);
      expect(await keyRow(key.keyId)).toMatchObject({
        expires_at: Date.UTC(2099, 11, 31, 23, 59, 59, 999),
        spend_limit: 500_000,
        spend_limit_period: 'week',
      });
      const capped = await generate(app, key, { model_name: 'seedance-2', prompt: 'a cat' });
      expect(capped.statusCode).toBe(402);
      expect(capped.json().error.code).toBe('spend_limit_reached');
      const shown = await getPage(app, `/panel/keys/${key.keyId}`, cookie);
      expect(shown).toContain('value="2099-12-31"');
      expect(shown).toContain('<option value="week" selected>');
      // An expiry in the past: the key is refused at once.
      expect((await post(`/panel/keys/${key.keyId}/limits`, { expires: '2020-01-01' })).statusCode).toBe(303);
      const expired = await app.http.inject({ method: 'GET', url: '/me/balance', headers: key.auth });
      expect(expired.statusCode).toBe(401);
      expect(expired.json().error.code).toBe('key_expired');
      const before = await keyRow(key.keyId);
      const bad = await post(`/panel/keys/${key.keyId}/limits`, { spend_limit: 'lots', spend_period: 'day' });
      expect(bad.statusCode).toBe(422);
      expect(bad.body).toContain('spend_limit_rub');
      expect(await keyRow(key.keyId)).toEqual(before);
      expect(await auditActions(owner.accountId)).toContain('key.restrictions_changed');
    });

    it('refuses to delete a key that holds money; after moving it, deletes and the API refuses the key', async () => {
      const { id, secret } = await createKey('to-delete');
      expect(
        (
          await post('/panel/money/transfer', {
            from_key_id: String(owner.keyId),
            to_key_id: String(id),
            amount: '1.5',
          })
        ).statusCode,
      ).toBe(303);
      const refused = await post(`/panel/keys/${id}/delete`, {});
      expect(refused.statusCode).toBe(409);
      expect(refused.body).toContain('still has a balance');
      expect((await keyRow(id))?.deleted_at).toBeNull();
      expect(
        (
          await post('/panel/money/transfer', {
            from_key_id: String(id),
            to_key_id: String(owner.keyId),
            amount: '1,50',
          })
        ).statusCode,
      ).toBe(303);
      // Cached by a first call, refused right after the deletion.
      expect(
        (
          await app.http.inject({
            method: 'GET',
            url: '/me/balance',
            headers: { authorization: `Bearer ${secret}` },
          })
        ).statusCode,
      ).toBe(200);
      const deleted = await post(`/panel/keys/${id}/delete`, {});
      expect(deleted.statusCode).toBe(303);
      expect(deleted.headers.location).toBe('/panel/keys?done=deleted');
      expect(
        (
          await app.http.inject({
            method: 'GET',
            url: '/me/balance',
            headers: { authorization: `Bearer ${secret}` },
          })
        ).statusCode,
      ).toBe(401);
      expect(await auditActions(owner.accountId)).toContain('key.deleted');
    });
  });

  describe('money', () => {
    it('transfers between own keys exactly: two ledger entries, audited, balances in micro-rubles', async () => {
      const target = await app.newKey({ messagingId: owner.messagingId, balanceRub: 0 });
      const before = Number((await keyRow(owner.keyId))!.balance);
      const res = await post('/panel/money/transfer', {
        from_key_id: String(owner.keyId),
        to_key_id: String(target.keyId),
        amount: '0.10',
        note: 'tip',
      });
      expect(res.statusCode).toBe(303);
      expect(Number((await keyRow(owner.keyId))!.balance)).toBe(before - 100_000);
      expect(Number((await keyRow(target.keyId))!.balance)).toBe(100_000);
      const entries = await app.ctx.storage.ledger.entriesForKey(target.keyId);
      expect(entries.at(-1)).toMatchObject({
        kind: 'transfer',
        amount: 100_000,
        note: `from key ${owner.keyId}: tip`,
      });
      expect(await auditActions(owner.accountId)).toContain('key.transfer');
      const html = await getPage(app, `/panel/money?key=${target.keyId}&kind=transfer`, cookie);
      expect(html).toContain('transfer');
      expect(html).toContain('+0.10 ₽');
    });

    it.each([
      [{ amount: '1000000' }, 402, 'available'],
      [{ amount: '0' }, 422, 'more than zero'],
      [{ amount: '1.1234567' }, 422, 'at most 6 decimals'],
      [{ amount: '1e3' }, 422, 'rubles'],
    ])('refuses %j and moves nothing', async (fields, status, reason) => {
      const target = await app.newKey({ messagingId: owner.messagingId, balanceRub: 0 });
      const before = Number((await keyRow(owner.keyId))!.balance);
      const res = await post('/panel/money/transfer', {
        from_key_id: String(owner.keyId),
        to_key_id: String(target.keyId),
        ...fields,
      });
      expect(res.statusCode).toBe(status);
      expect(res.body).toContain(reason);
      expect(Number((await keyRow(owner.keyId))!.balance)).toBe(before);
    });

    it('never moves money to or from another account’s key', async () => {
      const before = [
        Number((await keyRow(owner.keyId))!.balance),
        Number((await keyRow(stranger.keyId))!.balance),
      ];
      const out = await post('/panel/money/transfer', {
        from_key_id: String(owner.keyId),
        to_key_id: String(stranger.keyId),
        amount: '1',
      });
      const steal = await post('/panel/money/transfer', {
        from_key_id: String(stranger.keyId),
        to_key_id: String(owner.keyId),
        amount: '1',
      });
      expect([out.statusCode, steal.statusCode]).toEqual([404, 404]);
      expect([
        Number((await keyRow(owner.keyId))!.balance),
        Number((await keyRow(stranger.keyId))!.balance),
      ]).toEqual(before);
    });

    it('exports the filtered ledger as CSV with exact decimals', async () => {
      const res = await app.http.inject({
        method: 'GET',
        url: `/panel/money/export.csv?key=${owner.keyId}&kind=topup`,
        headers: { cookie },
      });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toContain('text/csv');
      const lines = res.body.trim().split('\r\n');
      expect(lines[0]).toBe(
        'id,time_utc,key_id,kind,amount_rub,balance_after_rub,held_after_rub,task_id,note',
      );
      expect(lines).toHaveLength(2);
      expect(lines[1]).toContain('"topup","100.00","100.00","0.00"');
    });
  });

  describe('analytics', () => {
    it('draws spend, requests and tokens from the account’s usage, per key and model', async () => {
      const now = Date.now();
      const { storage } = app.ctx;
      await recordChatUsage(storage, owner, {
        id: 'usage-a',
        at: now,
        model: 'gpt-4o',
        cost: 2_500_000,
        tokens: [1200, 345],
        latencyMs: 5,
      });
      await recordChatUsage(storage, stranger, {
        id: 'usage-b',
        at: now,
        model: 'claude-opus-4',
        cost: 1_000,
        tokens: [1, 1],
        latencyMs: 5,
      });
      const html = await getPage(app, '/panel/analytics?range=week', cookie);
      const json = (id: string) =>
        JSON.parse(new RegExp(`<script type="application/json" id="${id}">(.*?)</script>`).exec(html)![1]);
      const spend = json('chart-spend');
      expect(spend.x).toHaveLength(7);
      expect(spend.series.find((s: { label: string }) => s.label === 'gpt-4o').values.at(-1)).toBe(2.5);
      expect(json('chart-tokens').series[0].values.at(-1)).toBe(1200);
      expect(html).toContain('Top models by spend');
      expect(html).not.toContain('claude-opus-4');
      expect(html).toContain('/panel/assets/uplot.js');
      const day = await getPage(app, `/panel/analytics?range=day&key=${owner.keyId}`, cookie);
      expect(JSON.parse(/id="chart-spend">(.*?)<\/script>/.exec(day)![1]).x).toHaveLength(24);
    });

    it('refuses another account’s key (404) and a bad range (422 page)', async () => {
      const theirs = await app.http.inject({
        method: 'GET',
        url: `/panel/analytics?key=${stranger.keyId}`,
        headers: { cookie },
      });
      expect(theirs.statusCode).toBe(404);
      const bad = await app.http.inject({
        method: 'GET',
        url: '/panel/analytics?range=custom&from=2026-02-30',
        headers: { cookie },
      });
      expect(bad.statusCode).toBe(422);
      expect(bad.body).toContain('YYYY-MM-DD');
    });
  });

  describe('tasks', () => {
    let taskId: string;
    beforeAll(async () => {
      const res = await generate(app, owner, { model_name: 'flux-1-1-pro', prompt: 'a lighthouse' });
      expect(res.statusCode).toBe(202);
      taskId = res.json().task_id;
      expect((await waitForFinal(app, owner, taskId)).status).toBe('completed');
      const now = Date.now();
      await app.ctx.storage.webhooks.insert({
        id: 'msg_panel_test',
        task_id: taskId,
        account_id: owner.accountId,
        url: 'http://127.0.0.1:9/hook',
        payload: '{}',
        status: 'undelivered',
        attempts: 3,
        next_attempt_at: now,
        created_at: now,
        updated_at: now,
      } as never);
    }, 30_000);

    it('lists the account’s tasks with an inline image preview, and finds one by id', async () => {
      const html = await getPage(app, '/panel/tasks?model=flux-1-1-pro&status=completed', cookie);
      expect(html).toContain(`/panel/tasks/${taskId}`);
      expect(html).toMatch(/<img src="\/objects\/[^"]+" alt="Result image"/);
      const found = await app.http.inject({
        method: 'GET',
        url: `/panel/tasks?q=${taskId}`,
        headers: { cookie },
      });
      expect(found.statusCode).toBe(303);
      expect(found.headers.location).toBe(`/panel/tasks/${taskId}`);
      const page = await getPage(app, `/panel/tasks/${taskId}`, cookie);
      expect(page).toContain('msg_panel_test');
      expect(page).toContain('Redeliver');
    });

    it('redelivers a webhook of the owner’s task, audited', async () => {
      const res = await post(`/panel/tasks/${taskId}/deliveries/msg_panel_test/redeliver`, {});
      expect(res.statusCode).toBe(303);
      expect((await app.ctx.storage.webhooks.byId('msg_panel_test'))?.attempts).toBe(0);
      expect(await auditActions(owner.accountId)).toContain('webhook.redelivered');
    });

    it('shows nothing of another account’s tasks or deliveries, guessed ids included', async () => {
      const cookieB = await signIn(app, stranger.messagingId);
      for (const url of [
        `/panel/tasks/${taskId}`,
        `/panel/tasks/${taskId.toUpperCase()}`,
        '/panel/tasks/not-a-uuid',
      ]) {
        const res = await app.http.inject({ method: 'GET', url, headers: { cookie: cookieB } });
        expect(res.statusCode, url).toBe(404);
      }
      const list = await getPage(app, '/panel/tasks', cookieB);
      expect(list).not.toContain(taskId);
      const search = await getPage(app, `/panel/tasks?q=${taskId}`, cookieB);
      expect(search).toContain('No task of yours has this id');
      const csrfB = csrfOf(list);
      const redeliver = await postForm(
        app,
        `/panel/tasks/${taskId}/deliveries/msg_panel_test/redeliver`,
        cookieB,
        { _csrf: csrfB },
      );
      expect(redeliver.statusCode).toBe(404);
    });
  });

  it('every form refuses a POST without its CSRF token, changing nothing', async () => {
    const before = await keyRow(owner.keyId);
    const keysBefore = (await app.ctx.storage.keys.listForAccount(owner.accountId)).length;
    for (const [url, fields] of [
      ['/panel/keys', { name: 'csrf' }],
      [`/panel/keys/${owner.keyId}/rename`, { name: 'csrf' }],
      [`/panel/keys/${owner.keyId}/restrictions`, { models_mode: 'all', rate: '1' }],
      [`/panel/keys/${owner.keyId}/limits`, { spend_limit: '1', spend_period: 'day' }],
      [`/panel/keys/${owner.keyId}/delete`, {}],
      [
        '/panel/money/transfer',
        { from_key_id: String(owner.keyId), to_key_id: String(stranger.keyId), amount: '1' },
      ],
    ] as [string, Record<string, string>][]) {
      const res = await post(url, fields, undefined, false);
      expect(res.statusCode, url).toBe(403);
    }
    expect(await keyRow(owner.keyId)).toEqual(before);
    expect((await app.ctx.storage.keys.listForAccount(owner.accountId)).length).toBe(keysBefore);
  });

  it('another account’s key is not found on every key and money URL', async () => {
    const before = await keyRow(stranger.keyId);
    const gets = [
      `/panel/keys/${stranger.keyId}`,
      `/panel/money?key=${stranger.keyId}`,
      `/panel/money/export.csv?key=${stranger.keyId}`,
      '/panel/keys/999999',
      '/panel/keys/abc',
    ];
    for (const url of gets) {
      const res = await app.http.inject({ method: 'GET', url, headers: { cookie } });
      expect(res.statusCode, url).toBe(404);
      expect(res.body).not.toContain('not-yours');
    }
    for (const [url, fields] of [
      [`/panel/keys/${stranger.keyId}/rename`, { name: 'mine now' }],
      [`/panel/keys/${stranger.keyId}/restrictions`, { models_mode: 'all', rate: '1' }],
      [`/panel/keys/${stranger.keyId}/limits`, { spend_limit: '1', spend_period: 'day' }],
      [`/panel/keys/${stranger.keyId}/delete`, {}],
    ] as [string, Record<string, string>][]) {
      expect((await post(url, fields)).statusCode, url).toBe(404);
    }
    expect(await keyRow(stranger.keyId)).toEqual(before);
  });

  it('pages need a session', async () => {
    for (const url of [
      '/panel/keys',
      '/panel/money',
      '/panel/analytics',
      '/panel/tasks',
      `/panel/money/export.csv?key=${owner.keyId}`,
    ]) {
      const res = await app.http.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(401);
      expect(res.body).not.toContain('sk_live_');
    }
  });
});
