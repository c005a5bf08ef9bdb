// Brute force against every step that checks a second-factor code (sign-in, turning 2FA on, turning
// it off, new recovery codes): 16 connections guessing at once get exactly the allowed number of
// checks, then a lock-out that even the right code cannot pass, the owner sees it, and every check
// and the lock are in the audit log. The limit is one per account, shared by the steps and by every
// process on the database, on SQLite and PostgreSQL.
import { Client } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base32Decode, totp } from '../domain/panel/totp.js';
import {
  lockDurationMs,
  SECOND_FACTOR_LOCK_MS,
  SECOND_FACTOR_MAX_FAILURES,
  SECOND_FACTOR_MAX_LOCK_MS,
  SecondFactorLimit,
} from '../services/panel/panel-second-factor-limit.js';
import { createTestApp, listenOnLoopback, type TestApp, type TestKey } from '../testing/app.js';
import { ENGINES } from '../testing/db.js';
import { cookieFrom, csrfOf, form, getPage, loginLink, postForm, signIn, tokenOf } from '../testing/panel.js';

const CONNECTIONS = 16;
const GUESSES_PER_CONNECTION = 4;

const codeAt = (secret: string, offsetSteps = 0) =>
  totp(base32Decode(secret) ?? Buffer.alloc(0), Date.now() + offsetSteps * 30_000);

/** Six-digit codes none of which is valid around now (the check accepts one step either side). */
function wrongCodes(secret: string, count: number): string[] {
  const valid = new Set([-2, -1, 0, 1, 2].map((s) => codeAt(secret, s)));
  const codes: string[] = [];
  for (let n = 100_000; codes.length < count; n += 7_919) {
    const code = String(n % 1_000_000).padStart(6, '0');
    if (!valid.has(code)) codes.push(code);
  }
  return codes;
}

interface Guessing {
  origin: string;
  path: string;
  cookie: string;
  /** Form fields besides the code (the CSRF token on signed-in pages). */
  fields: Record<string, string>;
  codes: string[];
}

/**
 * CONNECTIONS real connections, each from its own loopback address, each sending its share of the
 * codes one after another, all at once. The statuses of all the answers.
 */
async function guessConcurrently(g: Guessing): Promise<number[]> {
  const clients = Array.from(
    { length: CONNECTIONS },
    (_, i) => new Client(g.origin, { localAddress: `127.0.0.${20 + i}`, pipelining: 1 }),
  );
  try {
    const perConnection = await Promise.all(
      clients.map(async (client, i) => {
        const statuses: number[] = [];
        for (let k = i; k < g.codes.length; k += CONNECTIONS) {
          const { payload, headers } = form({ ...g.fields, code: g.codes[k] });
          const res = await client.request({
            method: 'POST',
            path: g.path,
            body: payload,
            headers: { ...headers, cookie: g.cookie },
          });
          await res.body.text();
          statuses.push(res.statusCode);
        }
        return statuses;
      }),
    );
    return perConnection.flat();
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
}

const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

describe.each(ENGINES)('second-factor brute force on %s', (engine) => {
  let app: TestApp;
  let origin: string;

  beforeAll(async () => {
    app = await createTestApp({ engine });
    origin = await listenOnLoopback(app);
  });
  afterAll(() => app.dispose());

  async function auditOf(accountId: number, action: string) {
    const rows = await app.ctx.storage.db
      .selectFrom('audit_log')
      .select(['action', 'details', 'ip'])
      .where('account_id', '=', accountId)
      .where('action', '=', action)
      .orderBy('id')
      .execute();
    return rows.map((r) => ({ ...JSON.parse(r.details ?? '{}'), ip: r.ip }));
  }

  async function isEnabled(accountId: number) {
    return app.ctx.storage.db
      .withTables<{ panel_totp: { account_id: number; enabled_at: number | null } }>()
      .selectFrom('panel_totp')
      .select('enabled_at')
      .where('account_id', '=', accountId)
      .executeTakeFirst()
      .then((r) => r?.enabled_at != null);
  }

  /** A signed-in owner with a pending (unconfirmed) secret. */
  async function withPendingSecret(): Promise<{ owner: TestKey; cookie: string; secret: string }> {
    const owner = await app.newKey();
    const cookie = await signIn(app, owner.messagingId);
    const page = await getPage(app, '/panel/security', cookie);
    await postForm(app, '/panel/security/2fa/setup', cookie, { _csrf: csrfOf(page) });
    const secret =
      /data-totp-secret>([A-Z2-7]+)</.exec(await getPage(app, '/panel/security', cookie))?.[1] ?? '';
    expect(secret).toHaveLength(32);
    return { owner, cookie, secret };
  }

  /** A signed-in owner with 2FA on (turned on with a code one step ahead, so "now" stays unspent). */
  async function withTwoFactor() {
    const pending = await withPendingSecret();
    const page = await getPage(app, '/panel/security', pending.cookie);
    const on = await postForm(app, '/panel/security/2fa/confirm', pending.cookie, {
      _csrf: csrfOf(page),
      code: codeAt(pending.secret, -1),
    });
    expect(on.statusCode).toBe(200);
    const recovery = [...on.body.matchAll(/<li><code>([A-Z2-7]{5}-[A-Z2-7]{5})<\/code><\/li>/g)].map(
      (m) => m[1],
    );
    return { ...pending, recovery, csrf: csrfOf(page) };
  }

  /** The lock holds: the right code is refused (429 with Retry-After) and changes nothing. */
  async function expectLockedOnPage(cookie: string, path: string, fields: Record<string, string>) {
    const res = await postForm(app, path, cookie, fields);
    expect(res.statusCode).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(SECOND_FACTOR_LOCK_MS / 1000 - 60);
    expect(res.body).toContain('locked until');
  }

  /** All the connections' wrong codes at `path` at once, as the owner behind `cookie`. */
  const guessEveryConnection = (path: string, cookie: string, csrf: string, secret: string) =>
    guessConcurrently({
      origin,
      path,
      cookie,
      fields: { _csrf: csrf },
      codes: wrongCodes(secret, CONNECTIONS * GUESSES_PER_CONNECTION),
    });

  it('turning 2FA off: 16 connections get exactly 5 checks, then the lock refuses even the right code', async () => {
    const { owner, cookie, csrf, secret, recovery } = await withTwoFactor();
    const statuses = await guessEveryConnection('/panel/security/2fa/disable', cookie, csrf, secret);
    expect(statuses).toHaveLength(CONNECTIONS * GUESSES_PER_CONNECTION);
    expect(count(statuses, 422)).toBe(SECOND_FACTOR_MAX_FAILURES);
    expect(count(statuses, 429)).toBe(statuses.length - SECOND_FACTOR_MAX_FAILURES);

    await expectLockedOnPage(cookie, '/panel/security/2fa/disable', { _csrf: csrf, code: recovery[0] });
    await expectLockedOnPage(cookie, '/panel/security/2fa/disable', { _csrf: csrf, code: codeAt(secret, 1) });
    expect(await isEnabled(owner.accountId)).toBe(true);

    const rejected = await auditOf(owner.accountId, 'panel.2fa_code_rejected');
    expect(rejected).toHaveLength(SECOND_FACTOR_MAX_FAILURES);
    expect(rejected.every((r) => r.step === 'disable' && /^127\.0\.0\.\d+$/.test(r.ip))).toBe(true);
    const locked = await auditOf(owner.accountId, 'panel.2fa_locked');
    expect(locked).toHaveLength(1);
    expect(locked[0]).toMatchObject({ step: 'disable', failures: SECOND_FACTOR_MAX_FAILURES });
    expect(await auditOf(owner.accountId, 'panel.2fa_disabled')).toHaveLength(0);

    // The owner sees the lock on the Security page and in the audit log.
    const security = await getPage(app, '/panel/security', cookie);
    expect(security).toContain('data-2fa-locked');
    expect(security).toMatch(/Code checks are locked until \d\d:\d\d UTC/);
    expect(security).toMatch(/\d+ attempts were refused since/);
    const auditPage = await getPage(app, '/panel/audit', cookie);
    expect(auditPage).toContain('Two-factor code checks locked');
    expect(auditPage).toContain('Wrong two-factor code');
  });

  it('new recovery codes: 16 connections get exactly 5 checks; the codes stay as they were', async () => {
    const { owner, cookie, csrf, secret, recovery } = await withTwoFactor();
    const statuses = await guessEveryConnection('/panel/security/2fa/recovery-codes', cookie, csrf, secret);
    expect(count(statuses, 422)).toBe(SECOND_FACTOR_MAX_FAILURES);
    expect(count(statuses, 429)).toBe(statuses.length - SECOND_FACTOR_MAX_FAILURES);
    await expectLockedOnPage(cookie, '/panel/security/2fa/recovery-codes', {
      _csrf: csrf,
      code: codeAt(secret, 1),
    });
    expect(await auditOf(owner.accountId, 'panel.recovery_codes_regenerated')).toHaveLength(0);
    const rejected = await auditOf(owner.accountId, 'panel.2fa_code_rejected');
    expect(rejected.map((r) => r.step)).toEqual(Array(SECOND_FACTOR_MAX_FAILURES).fill('recovery_codes'));
    expect(await auditOf(owner.accountId, 'panel.2fa_locked')).toHaveLength(1);
    // The old recovery codes still work once the lock is over: nothing was replaced.
    const stored = await app.ctx.storage.db
      .withTables<{ panel_recovery_codes: { account_id: number; used_at: number | null } }>()
      .selectFrom('panel_recovery_codes')
      .select('used_at')
      .where('account_id', '=', owner.accountId)
      .execute();
    expect(stored.filter((r) => r.used_at === null)).toHaveLength(recovery.length);
  });

  it('turning 2FA on: 16 connections get exactly 5 checks against the pending secret', async () => {
    const { owner, cookie, secret } = await withPendingSecret();
    const csrf = csrfOf(await getPage(app, '/panel/security', cookie));
    const statuses = await guessEveryConnection('/panel/security/2fa/confirm', cookie, csrf, secret);
    expect(count(statuses, 422)).toBe(SECOND_FACTOR_MAX_FAILURES);
    expect(count(statuses, 429)).toBe(statuses.length - SECOND_FACTOR_MAX_FAILURES);
    await expectLockedOnPage(cookie, '/panel/security/2fa/confirm', { _csrf: csrf, code: codeAt(secret) });
    expect(await isEnabled(owner.accountId)).toBe(false);
    expect((await auditOf(owner.accountId, 'panel.2fa_code_rejected')).map((r) => r.step)).toEqual(
      Array(SECOND_FACTOR_MAX_FAILURES).fill('enable'),
    );
    expect(await auditOf(owner.accountId, 'panel.2fa_locked')).toHaveLength(1);
  });

  it('signing in: the code step shares the limit, so guesses spread over steps lock it too', async () => {
    const { owner, cookie, csrf, secret } = await withTwoFactor();
    // Three wrong codes on the Security page first…
    for (const code of wrongCodes(secret, 3)) {
      expect(
        (await postForm(app, '/panel/security/2fa/disable', cookie, { _csrf: csrf, code })).statusCode,
      ).toBe(422);
    }
    // …leave two for the sign-in step, whatever the number of connections.
    const link = await loginLink(app, owner.messagingId);
    const { payload, headers } = form({ token: tokenOf(link) });
    const first = await app.http.inject({ method: 'POST', url: '/panel/login', payload, headers });
    expect(first.headers.location).toBe('/panel/login/code');
    const pending = cookieFrom(first.headers, 'gengate_2fa') ?? '';
    const statuses = await guessConcurrently({
      origin,
      path: '/panel/login/code',
      cookie: pending,
      fields: {},
      codes: wrongCodes(secret, CONNECTIONS * GUESSES_PER_CONNECTION).slice(3),
    });
    expect(count(statuses, 401)).toBe(SECOND_FACTOR_MAX_FAILURES - 3);
    expect(count(statuses, 429)).toBe(statuses.length - (SECOND_FACTOR_MAX_FAILURES - 3));
    // The right code opens no session while locked.
    const right = await postForm(
      app,
      '/panel/login/code',
      pending,
      { code: codeAt(secret, 1) },
      '127.0.0.99',
    );
    expect(right.statusCode).toBe(429);
    expect(cookieFrom(right.headers, 'gengate_session')).toBeUndefined();

    const rejected = await auditOf(owner.accountId, 'panel.2fa_code_rejected');
    expect(rejected.map((r) => r.step)).toEqual(['disable', 'disable', 'disable', 'sign_in', 'sign_in']);
    const locked = await auditOf(owner.accountId, 'panel.2fa_locked');
    expect(locked).toHaveLength(1);
    expect(locked[0].step).toBe('sign_in');
    expect(await auditOf(owner.accountId, 'panel.login')).toHaveLength(1); // the first sign-in only
  });

  it('a lock set on the Security page refuses the sign-in code step, right code included', async () => {
    const { owner, cookie, csrf, secret } = await withTwoFactor();
    for (const code of wrongCodes(secret, SECOND_FACTOR_MAX_FAILURES)) {
      await postForm(app, '/panel/security/2fa/disable', cookie, { _csrf: csrf, code });
    }
    const link = await loginLink(app, owner.messagingId);
    const { payload, headers } = form({ token: tokenOf(link) });
    const first = await app.http.inject({ method: 'POST', url: '/panel/login', payload, headers });
    const pending = cookieFrom(first.headers, 'gengate_2fa') ?? '';
    const right = await postForm(app, '/panel/login/code', pending, { code: codeAt(secret, 1) });
    expect(right.statusCode).toBe(429);
    expect(Number(right.headers['retry-after'])).toBeGreaterThan(0);
    expect(right.body).toMatch(/code checks are locked until \d\d:\d\d UTC/);
    expect(cookieFrom(right.headers, 'gengate_session')).toBeUndefined();
  });

  it('a right code is audited and starts the count over; the page shows the wrong codes so far', async () => {
    const { owner, cookie, csrf, secret } = await withTwoFactor();
    for (const code of wrongCodes(secret, 4)) {
      const res = await postForm(app, '/panel/security/2fa/recovery-codes', cookie, { _csrf: csrf, code });
      expect(res.statusCode).toBe(422);
    }
    const warned = await getPage(app, '/panel/security', cookie);
    expect(warned).toContain('data-2fa-failures');
    expect(warned).toContain('4 wrong codes since the last right one: 1 more and code checks lock');
    const ok = await postForm(app, '/panel/security/2fa/recovery-codes', cookie, {
      _csrf: csrf,
      code: codeAt(secret, 1),
    });
    expect(ok.statusCode).toBe(200);
    expect(await getPage(app, '/panel/security', cookie)).not.toContain('data-2fa-failures');
    const accepted = await auditOf(owner.accountId, 'panel.2fa_code_accepted');
    expect(accepted.map((r) => r.step)).toEqual(['enable', 'recovery_codes']);
    // A fresh count: five more wrong codes before the lock.
    const statuses: number[] = [];
    for (const code of wrongCodes(secret, 6)) {
      statuses.push(
        (await postForm(app, '/panel/security/2fa/disable', cookie, { _csrf: csrf, code })).statusCode,
      );
    }
    expect(statuses).toEqual([422, 422, 422, 422, 422, 429]);
  });

  it('one limit for every process on the database: guesses alternated between two servers', async () => {
    const other = await createTestApp({ engine, db: app.db });
    try {
      const { owner, cookie, csrf, secret } = await withTwoFactor();
      const servers = [app, other];
      const statuses: number[] = [];
      for (const [i, code] of wrongCodes(secret, 8).entries()) {
        statuses.push(
          (await postForm(servers[i % 2], '/panel/security/2fa/disable', cookie, { _csrf: csrf, code }))
            .statusCode,
        );
      }
      expect(statuses).toEqual([422, 422, 422, 422, 422, 429, 429, 429]);
      expect(await auditOf(owner.accountId, 'panel.2fa_code_rejected')).toHaveLength(
        SECOND_FACTOR_MAX_FAILURES,
      );
    } finally {
      await other.close();
    }
  });

  it('the lock-out ends after its time and doubles each time until a right code', async () => {
    const owner = await app.newKey();
    let now = Date.now();
    const limit = new SecondFactorLimit(app.ctx.storage, { now: () => now });
    const by = { actor: 'owner', ip: '10.0.0.1' };
    const wrong = () => limit.check(owner.accountId, 'disable', by, async () => undefined);
    const right = () => limit.check(owner.accountId, 'disable', by, async () => 'totp' as const);

    const lockOnce = async (expectedMs: number) => {
      for (let i = 1; i < SECOND_FACTOR_MAX_FAILURES; i++) {
        expect(await wrong()).toEqual({ outcome: 'rejected', attemptsLeft: SECOND_FACTOR_MAX_FAILURES - i });
      }
      expect(await wrong()).toEqual({ outcome: 'rejected', attemptsLeft: 0, lockedUntil: now + expectedMs });
      expect(await right()).toEqual({ outcome: 'locked', lockedUntil: now + expectedMs });
      now += expectedMs - 1;
      expect((await right()).outcome).toBe('locked');
      now += 1;
    };
    await lockOnce(SECOND_FACTOR_LOCK_MS);
    await lockOnce(SECOND_FACTOR_LOCK_MS * 2);
    await lockOnce(SECOND_FACTOR_LOCK_MS * 4);
    expect(await right()).toEqual({ outcome: 'accepted', value: 'totp' });
    await lockOnce(SECOND_FACTOR_LOCK_MS);
    expect(lockDurationMs(10)).toBe(SECOND_FACTOR_MAX_LOCK_MS);
    expect(await limit.state(owner.accountId)).toMatchObject({ failures: 0, attemptsLeft: 5 });
  });
});
