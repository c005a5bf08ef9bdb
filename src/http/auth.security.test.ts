// API key authentication, attacked: missing, malformed, unknown, altered and deleted keys all answer
// 401 in the one error shape; the database never holds a raw key; a full key is shown only in the
// answer that creates it. On both engines.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../domain/keys/api-key.js';
import { ADMIN_TOKEN, createTestApp, type TestApp } from '../testing/app.js';
import { ENGINES } from '../testing/db.js';

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const KEY_ENDPOINTS = ['/me/balance', '/me/keys'];

describe.each(ENGINES)('API key authentication on %s', (engine) => {
  let app: TestApp;
  let messagingId = 880_000;
  beforeAll(async () => {
    app = await createTestApp({ engine });
  });
  afterAll(() => app.dispose());

  async function adminCreateKey(): Promise<{
    id: number;
    secret: string;
    messagingId: number;
    createBody: string;
  }> {
    const id = messagingId++;
    expect(
      (
        await app.http.inject({
          method: 'POST',
          url: '/admin/accounts',
          headers: admin,
          payload: { messaging_id: id },
        })
      ).statusCode,
    ).toBe(201);
    const res = await app.http.inject({
      method: 'POST',
      url: `/admin/accounts/${id}/keys`,
      headers: admin,
      payload: { name: 'sec' },
    });
    expect(res.statusCode).toBe(201);
    const { id: keyId, key_value } = res.json() as { id: number; key_value: string };
    await app.http.inject({
      method: 'POST',
      url: `/admin/keys/${keyId}/topup`,
      headers: admin,
      payload: { amount_rub: 50 },
    });
    return { id: keyId, secret: key_value, messagingId: id, createBody: res.body };
  }

  async function expect401(headers: Record<string, string>, leaked?: string) {
    for (const url of KEY_ENDPOINTS) {
      const res = await app.http.inject({ method: 'GET', url, headers });
      expect(res.statusCode, `${url} with ${JSON.stringify(headers)}`).toBe(401);
      expect(res.json()).toEqual({
        error: {
          message: expect.any(String),
          type: 'authentication_error',
          code: 'invalid_api_key',
          param: null,
        },
      });
      if (leaked) expect(res.body).not.toContain(leaked);
    }
  }

  it('answers 401 when the Authorization header is missing', async () => {
    await expect401({});
  });

  it.each([
    ['an empty header', ''],
    ['a bare scheme', 'Bearer'],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['a key without a scheme', 'KEY'],
    ['two tokens', 'Bearer KEY extra'],
    ['control characters', 'Bearer sk_live_\u0001\u0002aaaaaaaaaaaaaaaaaaaaaaaaa'],
    ['a token far too long', `Bearer sk_live_${'a'.repeat(5000)}`],
    ['a token too short', 'Bearer sk_live_a'],
    ['SQL in the token', "Bearer sk_live_' or '1'='1"],
  ])('answers 401 to a malformed header (%s)', async (_name, header) => {
    const key = await app.newKey();
    await expect401({ authorization: header.replace('KEY', key.secret) });
  });

  it('answers 401 to an unknown key and to a real key altered by one character', async () => {
    const unknown = generateApiKey();
    await expect401({ authorization: `Bearer ${unknown}` }, unknown);
    const { secret } = await adminCreateKey();
    const last = secret.at(-1) === 'a' ? 'b' : 'a';
    const altered = secret.slice(0, -1) + last;
    await expect401({ authorization: `Bearer ${altered}` }, altered);
    await expect401({ authorization: `Bearer ${secret}x` });
  });

  it('answers 401 to a deleted key, at once', async () => {
    const { id, secret } = await adminCreateKey();
    expect(
      (
        await app.http.inject({
          method: 'GET',
          url: '/me/balance',
          headers: { authorization: `Bearer ${secret}` },
        })
      ).json(),
    ).toEqual({ key_balance: 50 });
    expect(
      (await app.http.inject({ method: 'DELETE', url: `/admin/keys/${id}`, headers: admin })).statusCode,
    ).toBe(204);
    await expect401({ authorization: `Bearer ${secret}` }, secret);
  });

  it('stores no raw key anywhere in the database', async () => {
    const keys = await Promise.all([adminCreateKey(), adminCreateKey(), adminCreateKey()]);
    await app.http.inject({
      method: 'PATCH',
      url: `/admin/keys/${keys[0].id}`,
      headers: admin,
      payload: { rate_limit_per_min: 9 },
    });
    await app.http.inject({ method: 'DELETE', url: `/admin/keys/${keys[1].id}`, headers: admin });
    for (const key of keys)
      await app.http.inject({
        method: 'GET',
        url: '/me/keys',
        headers: { authorization: `Bearer ${key.secret}` },
      });

    // Every text value of every row of every table of this database (and only this one).
    const schema =
      engine === 'postgres'
        ? (await sql<{ s: string }>`select current_schema() as s`.execute(app.ctx.storage.db)).rows[0].s
        : undefined;
    const tables = (
      await app.ctx.storage.db.introspection.getTables({ withInternalKyselyTables: true })
    ).filter((t) => !schema || t.schema === schema);
    expect(tables.map((t) => t.name)).toEqual(
      expect.arrayContaining([
        'accounts',
        'api_keys',
        'audit_log',
        'ledger_entries',
        'panel_tokens',
        'settings',
      ]),
    );
    let textValues = 0;
    for (const table of tables) {
      const rows = (await sql`select * from ${sql.table(table.name)}`.execute(app.ctx.storage.db))
        .rows as Record<string, unknown>[];
      for (const row of rows) {
        for (const [column, value] of Object.entries(row)) {
          if (typeof value !== 'string') continue;
          textValues++;
          for (const key of keys) {
            // Neither the key nor its secret middle (never displayed, even masked) may appear.
            expect(value.includes(key.secret), `${table.name}.${column}`).toBe(false);
            expect(value.includes(key.secret.slice(12, -4)), `${table.name}.${column}`).toBe(false);
          }
        }
      }
    }
    expect(textValues).toBeGreaterThan(50);
  });

  it('shows a full key only in the answer that creates it', async () => {
    const key = await adminCreateKey();
    expect(key.createBody).toContain(key.secret);
    const auth = { authorization: `Bearer ${key.secret}` };
    const answers = [
      await app.http.inject({ method: 'GET', url: '/me/keys', headers: auth }),
      await app.http.inject({ method: 'GET', url: '/me/balance', headers: auth }),
      await app.http.inject({ method: 'GET', url: `/admin/accounts/${key.messagingId}`, headers: admin }),
      await app.http.inject({
        method: 'PATCH',
        url: `/admin/keys/${key.id}`,
        headers: admin,
        payload: { rate_limit_per_min: 10 },
      }),
      await app.http.inject({
        method: 'POST',
        url: `/admin/keys/${key.id}/topup`,
        headers: admin,
        payload: { amount_rub: 1 },
      }),
    ];
    for (const res of answers) {
      expect(res.statusCode).toBe(200);
      expect(res.body).not.toContain(key.secret);
      expect(res.body).not.toContain(key.secret.slice(12, -4));
    }
    const account = answers[0].json() as { keys: { id: number; key_value: string }[] };
    expect(account.keys.find((k) => k.id === key.id)?.key_value).toBe(
      `${key.secret.slice(0, 12)}…${key.secret.slice(-4)}`,
    );
    const adminView = answers[2].json() as { keys: { id: number; key_value: string }[] };
    expect(adminView.keys.find((k) => k.id === key.id)?.key_value).toBe(
      `${key.secret.slice(0, 12)}…${key.secret.slice(-4)}`,
    );
  });
});
