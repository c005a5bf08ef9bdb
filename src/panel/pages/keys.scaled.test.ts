// Scaled out (PostgreSQL + Redis, two API processes): an owner restricts or deletes a key on one
// process's panel, and the other process's API obeys within a second, though it had the key cached.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestKey } from '../../testing/app.js';
import { openTestDb, type TestDb } from '../../testing/db.js';
import { csrfOf, getPage, postForm, signIn } from '../../testing/panel.js';
import { HAVE_POSTGRES, HAVE_REDIS, REDIS_URL } from '../../testing/services.js';
import { generate } from '../../testing/tasks.js';

describe.skipIf(!HAVE_POSTGRES || !HAVE_REDIS)('panel key changes across processes', () => {
  let db: TestDb;
  let panelSide: TestApp;
  let apiSide: TestApp;
  let owner: TestKey;
  let cookie: string;

  beforeAll(async () => {
    db = await openTestDb('postgres');
    // A long auth-cache TTL: only the Redis message can make the API side see the change in time.
    const config = { redisUrl: REDIS_URL, keyCacheTtlMs: 60_000 };
    panelSide = await createTestApp({ db, config });
    apiSide = await createTestApp({ db, config });
    owner = await panelSide.newKey({ balanceRub: 10 });
    cookie = await signIn(panelSide, owner.messagingId);
  }, 60_000);
  afterAll(async () => {
    await apiSide?.dispose();
    await panelSide?.dispose();
    await db?.dispose();
  });

  /** Polls the API side until `check` holds or a second has passed; returns the elapsed ms. */
  async function within(check: () => Promise<boolean>): Promise<number> {
    const started = Date.now();
    while (Date.now() - started < 1000) {
      if (await check()) return Date.now() - started;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('the API side did not see the change within a second');
  }

  it('a restriction saved on one process is obeyed by the other within a second', async () => {
    const key = await panelSide.newKey({ messagingId: owner.messagingId, balanceRub: 10 });
    // Cached on the API side.
    expect(
      (await apiSide.http.inject({ method: 'GET', url: '/me/balance', headers: key.auth })).statusCode,
    ).toBe(200);
    const csrf = csrfOf(await getPage(panelSide, `/panel/keys/${key.keyId}`, cookie));
    const saved = await postForm(panelSide, `/panel/keys/${key.keyId}/restrictions`, cookie, {
      _csrf: csrf,
      models_mode: 'some',
      model: 'gpt-4o-mini',
    });
    expect(saved.statusCode).toBe(303);
    await within(
      async () =>
        (await generate(apiSide, key, { model_name: 'flux-1-1-pro', prompt: 'x' })).statusCode === 403,
    );
  });

  it('a key deleted on one process is refused (401) by the other within a second', async () => {
    const key = await panelSide.newKey({ messagingId: owner.messagingId, balanceRub: 0 });
    expect(
      (await apiSide.http.inject({ method: 'GET', url: '/me/balance', headers: key.auth })).statusCode,
    ).toBe(200);
    const csrf = csrfOf(await getPage(panelSide, `/panel/keys/${key.keyId}`, cookie));
    expect(
      (await postForm(panelSide, `/panel/keys/${key.keyId}/delete`, cookie, { _csrf: csrf })).statusCode,
    ).toBe(303);
    await within(
      async () =>
        (await apiSide.http.inject({ method: 'GET', url: '/me/balance', headers: key.auth })).statusCode ===
        401,
    );
  });
});
