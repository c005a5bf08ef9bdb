// The admin API of DESIGN.md section 5: every endpoint's happy path, its validation errors in the one
// error shape, and the side effects (rows written, or not) behind each answer.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createTestApp, type TestApp } from '../../../testing/app.js';

let app: TestApp;
let nextId = 70_000;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.dispose());

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const call = (method: Method, url: string, payload?: unknown, headers: Record<string, string> = admin) =>
  app.http.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });

function expectError(
  res: { statusCode: number; json(): any },
  status: number,
  code: string,
  param?: string | null,
) {
  expect(res.statusCode).toBe(status);
  const body = res.json();
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error).toMatchObject({ code, type: expect.any(String), message: expect.any(String) });
  expect(body.error).toHaveProperty('param');
  if (param !== undefined) expect(body.error.param).toBe(param);
}

async function newAccount(coefficient?: number): Promise<number> {
  const messagingId = nextId++;
  const res = await call('POST', '/admin/accounts', {
    messaging_id: messagingId,
    ...(coefficient === undefined ? {} : { coefficient }),
  });
  expect(res.statusCode).toBe(201);
  return messagingId;
}

async function newKey(messagingId: number, body: Record<string, unknown> = {}) {
  const res = await call('POST', `/admin/accounts/${messagingId}/keys`, body);
  expect(res.statusCode).toBe(201);
  return res.json() as { id: number; key_value: string; balance: number };
}

const countRows = async (table: 'accounts' | 'api_keys' | 'ledger_entries' | 'audit_log' | 'panel_tokens') =>
  Number(
    (
      await app.ctx.storage.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

const ENDPOINTS: [Method, string][] = [
  ['POST', '/admin/accounts'],
  ['GET', '/admin/accounts/1'],
  ['POST', '/admin/accounts/1/keys'],
  ['PATCH', '/admin/keys/1'],
  ['DELETE', '/admin/keys/1'],
  ['POST', '/admin/keys/1/topup'],
  ['PUT', '/admin/maintenance'],
  ['GET', '/admin/models'],
  ['PUT', '/admin/models/x'],
  ['GET', '/admin/webhooks?status=undelivered'],
  ['POST', '/admin/accounts/1/login-link'],
  ['GET', '/admin/providers'],
];

describe('admin authentication', () => {
  it('answers 404 on every endpoint when ADMIN_TOKEN is unset, even to a would-be token', async () => {
    const closed = await createTestApp({ config: { adminToken: undefined } });
    try {
      for (const [method, url] of ENDPOINTS) {
        for (const headers of [{}, admin]) {
          const res = await closed.http.inject({
            method,
            url,
            headers,
            payload: method === 'GET' || method === 'DELETE' ? undefined : {},
          });
          expectError(res, 404, 'not_found');
        }
      }
      expect(await closed.ctx.storage.accounts.count()).toBe(0);
    } finally {
      await closed.dispose();
    }
  });

  it('answers 401 to a missing or wrong token, changing nothing', async () => {
    const before = await countRows('accounts');
    // One address per endpoint: an address sending more wrong tokens than that is slowed down (below).
    for (const [i, [method, url]] of ENDPOINTS.entries()) {
      for (const headers of [
        {},
        { authorization: 'Bearer wrong-token' },
        { authorization: ADMIN_TOKEN },
        { authorization: `Bearer ${ADMIN_TOKEN}x` },
      ]) {
        const res = await app.http.inject({
          method,
          url,
          headers,
          payload: method === 'GET' || method === 'DELETE' ? undefined : { messaging_id: 5 },
          remoteAddress: `10.44.0.${i}`,
        });
        expectError(res, 401, 'invalid_api_key');
      }
    }
    expect(await countRows('accounts')).toBe(before);
  });

  it('does not accept an API key as the admin token', async () => {
    const key = await app.newKey();
    expectError(await call('GET', '/admin/models', undefined, key.auth), 401, 'invalid_api_key');
  });
});

describe('POST /admin/accounts', () => {
  it('creates an account with a webhook secret and the default coefficient', async () => {
    const res = await call('POST', '/admin/accounts', { messaging_id: 9_100_001 });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      messaging_id: 9_100_001,
      coefficient: 1,
      webhook_secret: expect.stringMatching(/^whsec_.{20,}/),
      keys: [],
    });
    const audit = await app.ctx.storage.audit.listForAccount(
      (await app.ctx.storage.accounts.byMessagingId(9_100_001))!.id,
    );
    expect(audit.map((a) => a.action)).toEqual(['account.created']);
  });

  it('takes a coefficient, given as a number or a decimal string', async () => {
    expect(
      (await call('POST', '/admin/accounts', { messaging_id: 9_100_002, coefficient: 1.25 })).json()
        .coefficient,
    ).toBe(1.25);
    expect(
      (await call('POST', '/admin/accounts', { messaging_id: '9100003', coefficient: '0.8' })).json(),
    ).toMatchObject({ messaging_id: 9_100_003, coefficient: 0.8 });
  });

  it('refuses a second account with the same messaging_id with 409', async () => {
    await call('POST', '/admin/accounts', { messaging_id: 9_100_004 });
    const before = await countRows('accounts');
    expectError(
      await call('POST', '/admin/accounts', { messaging_id: 9_100_004, coefficient: 2 }),
      409,
      'account_exists',
      'messaging_id',
    );
    expect(await countRows('accounts')).toBe(before);
    expect((await call('GET', '/admin/accounts/9100004')).json().coefficient).toBe(1);
  });

  it('refuses concurrent duplicates: exactly one is created', async () => {
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => call('POST', '/admin/accounts', { messaging_id: 9_100_005 })),
    );
    expect(answers.map((r) => r.statusCode).sort()).toEqual([201, 409, 409, 409, 409]);
  });

  it.each([
    [{}, 422, 'invalid_parameter', 'messaging_id'],
    [{ messaging_id: 0 }, 422, 'invalid_parameter', 'messaging_id'],
    [{ messaging_id: -3 }, 422, 'invalid_parameter', 'messaging_id'],
    [{ messaging_id: 1.5 }, 422, 'invalid_parameter', 'messaging_id'],
    [{ messaging_id: 'abc' }, 422, 'invalid_parameter', 'messaging_id'],
    [{ messaging_id: 9_100_010, coefficient: 0 }, 422, 'invalid_parameter', 'coefficient'],
    [{ messaging_id: 9_100_011, coefficient: -1 }, 422, 'invalid_parameter', 'coefficient'],
    [{ messaging_id: 9_100_012, coefficient: 'much' }, 422, 'invalid_parameter', 'coefficient'],
    [{ messaging_id: 9_100_013, name: 'x' }, 422, 'unknown_field', 'name'],
  ])('refuses %j with %i %s', async (body, status, code, param) => {
    const before = await countRows('accounts');
    expectError(await call('POST', '/admin/accounts', body), status, code, param);
    expect(await countRows('accounts')).toBe(before);
  });

  it('answers malformed JSON and a non-object body with 400', async () => {
    const res = await app.http.inject({
      method: 'POST',
      url: '/admin/accounts',
      headers: { ...admin, 'content-type': 'application/json' },
      payload: '{"messaging_id": ',
    });
    expectError(res, 400, 'invalid_json');
    expectError(await call('POST', '/admin/accounts', [1, 2]), 400, 'invalid_json');
  });
});

describe('GET /admin/accounts/{messaging_id}', () => {
  it('shows the account with its live keys masked', async () => {
    const messagingId = await newAccount(1.5);
    const first = await newKey(messagingId, { name: 'prod' });
    const second = await newKey(messagingId);
    await call('DELETE', `/admin/keys/${second.id}`);
    const res = await call('GET', `/admin/accounts/${messagingId}`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      messaging_id: messagingId,
      coefficient: 1.5,
      webhook_secret: expect.stringMatching(/^whsec_/),
    });
    expect(body.keys).toHaveLength(1);
    expect(body.keys[0]).toMatchObject({
      id: first.id,
      name: 'prod',
      key_value: `${first.key_value.slice(0, 12)}…${first.key_value.slice(-4)}`,
      balance: 0,
    });
    expect(res.body).not.toContain(first.key_value);
  });

  it('answers 404 for an unknown account and 422 for an id that is not one', async () => {
    expectError(await call('GET', '/admin/accounts/987654321'), 404, 'not_found');
    expectError(await call('GET', '/admin/accounts/abc'), 422, 'invalid_parameter', 'messaging_id');
  });
});

describe('POST /admin/accounts/{messaging_id}/keys', () => {
  it('creates a key, shows it in full this once, and credits nothing', async () => {
    const messagingId = await newAccount();
    const ledgerBefore = await countRows('ledger_entries');
    const res = await call('POST', `/admin/accounts/${messagingId}/keys`, {
      name: 'ci',
      allowed_models: ['seedance-2', 'gpt-4o'],
      allowed_ip_cidrs: ['10.0.0.0/8', '2001:db8::/32', '127.0.0.1'],
      rate_limit_per_min: 120,
    });
    expect(res.statusCode).toBe(201);
    const key = res.json();
    expect(key).toMatchObject({
      id: expect.any(Number),
      name: 'ci',
      key_value: expect.stringMatching(/^sk_live_[0-9A-Za-z]{43,}$/),
      balance: 0,
      allowed_models: ['seedance-2', 'gpt-4o'],
      allowed_ip_cidrs: ['10.0.0.0/8', '2001:db8::/32', '127.0.0.1'],
      rate_limit_per_min: 120,
    });
    expect(await countRows('ledger_entries')).toBe(ledgerBefore);
    // The key works at once, with its zero balance.
    const balance = await app.http.inject({
      method: 'GET',
      url: '/me/balance',
      headers: { authorization: `Bearer ${key.key_value}` },
    });
    expect(balance.json()).toEqual({ key_balance: 0 });
  });

  it('gives every key a different secret', async () => {
    const messagingId = await newAccount();
    const secrets = new Set<string>();
    for (let i = 0; i < 5; i++) secrets.add((await newKey(messagingId)).key_value);
    expect(secrets.size).toBe(5);
  });

  it.each([
    [{ allowed_models: 'seedance-2' }, 'allowed_models'],
    [{ allowed_models: [1] }, 'allowed_models'],
    [{ allowed_models: ['seedance-2', 'no-such-model'] }, 'allowed_models'],
    [{ allowed_models: ['veo-3-fast:audio'] }, 'allowed_models'],
    [{ allowed_ip_cidrs: ['not-an-ip'] }, 'allowed_ip_cidrs'],
    [{ allowed_ip_cidrs: ['10.0.0.0/33'] }, 'allowed_ip_cidrs'],
    [{ rate_limit_per_min: 0 }, 'rate_limit_per_min'],
    [{ rate_limit_per_min: 2.5 }, 'rate_limit_per_min'],
    [{ rate_limit_per_min: '60' }, 'rate_limit_per_min'],
    [{ name: 42 }, 'name'],
  ])('refuses %j with 422 and creates nothing', async (body, param) => {
    const messagingId = await newAccount();
    const before = await countRows('api_keys');
    expectError(
      await call('POST', `/admin/accounts/${messagingId}/keys`, body),
      422,
      'invalid_parameter',
      param,
    );
    expect(await countRows('api_keys')).toBe(before);
  });

  it('refuses an unknown field with 422 and an unknown account with 404', async () => {
    const messagingId = await newAccount();
    expectError(
      await call('POST', `/admin/accounts/${messagingId}/keys`, { balance: 100 }),
      422,
      'unknown_field',
      'balance',
    );
    expectError(await call('POST', '/admin/accounts/987654322/keys', {}), 404, 'not_found');
  });
});

describe('PATCH /admin/keys/{id}', () => {
  it('sets restrictions and null clears them', async () => {
    const key = await newKey(await newAccount(), {
      allowed_models: ['sora-2'],
      allowed_ip_cidrs: ['10.0.0.0/8'],
      rate_limit_per_min: 5,
    });
    const set = await call('PATCH', `/admin/keys/${key.id}`, {
      allowed_models: ['seedance-2'],
      rate_limit_per_min: 50,
    });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toMatchObject({
      id: key.id,
      allowed_models: ['seedance-2'],
      allowed_ip_cidrs: ['10.0.0.0/8'],
      rate_limit_per_min: 50,
    });
    expect(set.body).not.toContain(key.key_value);

    const cleared = await call('PATCH', `/admin/keys/${key.id}`, {
      allowed_models: null,
      allowed_ip_cidrs: null,
      rate_limit_per_min: null,
    });
    expect(cleared.json()).toMatchObject({
      allowed_models: null,
      allowed_ip_cidrs: null,
      rate_limit_per_min: null,
    });
    const row = await app.ctx.storage.keys.byIdForOperator(key.id);
    expect(row).toMatchObject({ allowed_models: null, allowed_ip_cidrs: null, rate_limit_per_min: null });
  });

  it('refuses invalid values and unknown fields, changing nothing', async () => {
    const key = await newKey(await newAccount(), { rate_limit_per_min: 5 });
    expectError(
      await call('PATCH', `/admin/keys/${key.id}`, { rate_limit_per_min: -1 }),
      422,
      'invalid_parameter',
      'rate_limit_per_min',
    );
    expectError(
      await call('PATCH', `/admin/keys/${key.id}`, { allowed_ip_cidrs: ['300.1.1.1'] }),
      422,
      'invalid_parameter',
      'allowed_ip_cidrs',
    );
    // allowed_models names catalog ids only: a typo or an internal variant is refused.
    for (const allowed_models of [['gpt-4o', 'gpt-4o-typo'], ['seedance-2:1080p']]) {
      expectError(
        await call('PATCH', `/admin/keys/${key.id}`, { allowed_models }),
        422,
        'invalid_parameter',
        'allowed_models',
      );
    }
    expect((await app.ctx.storage.keys.byIdForOperator(key.id))?.allowed_models).toBeNull();
    expectError(
      await call('PATCH', `/admin/keys/${key.id}`, { balance: 5 }),
      422,
      'unknown_field',
      'balance',
    );
    expect((await app.ctx.storage.keys.byIdForOperator(key.id))?.rate_limit_per_min).toBe(5);
  });

  it('answers 404 for an unknown, deleted or malformed key id', async () => {
    expectError(await call('PATCH', '/admin/keys/99999999', { rate_limit_per_min: 5 }), 404, 'not_found');
    expectError(await call('PATCH', '/admin/keys/abc', { rate_limit_per_min: 5 }), 404, 'not_found');
    const key = await newKey(await newAccount());
    await call('DELETE', `/admin/keys/${key.id}`);
    expectError(await call('PATCH', `/admin/keys/${key.id}`, { rate_limit_per_min: 5 }), 404, 'not_found');
  });
});

describe('DELETE /admin/keys/{id}', () => {
  it('answers 204, and the key answers 401 from the very next request', async () => {
    const key = await app.newKey({ balanceRub: 10 });
    // A request first, so the key sits in the authentication cache.
    expect((await app.http.inject({ method: 'GET', url: '/me/balance', headers: key.auth })).statusCode).toBe(
      200,
    );
    const res = await call('DELETE', `/admin/keys/${key.keyId}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expectError(
      await app.http.inject({ method: 'GET', url: '/me/balance', headers: key.auth }),
      401,
      'invalid_api_key',
    );
    expectError(
      await app.http.inject({ method: 'GET', url: '/me/keys', headers: key.auth }),
      401,
      'invalid_api_key',
    );
    expectError(await call('DELETE', `/admin/keys/${key.keyId}`), 404, 'not_found');
    const audit = await app.ctx.storage.audit.listForAccount(key.accountId);
    expect(audit.map((a) => a.action)).toContain('key.deleted');
  });

  it('leaves the other keys of the account working', async () => {
    const first = await app.newKey();
    const second = await app.newKey({ messagingId: first.messagingId });
    await call('DELETE', `/admin/keys/${first.keyId}`);
    expect(
      (await app.http.inject({ method: 'GET', url: '/me/balance', headers: second.auth })).statusCode,
    ).toBe(200);
  });
});

describe('POST /admin/keys/{id}/topup', () => {
  it('credits decimal rubles exactly and records each credit in the ledger', async () => {
    const key = await newKey(await newAccount());
    expect((await call('POST', `/admin/keys/${key.id}/topup`, { amount_rub: 0.1 })).json()).toEqual({
      balance: 0.1,
    });
    expect(
      (await call('POST', `/admin/keys/${key.id}/topup`, { amount_rub: 0.2, note: 'invoice 7' })).json(),
    ).toEqual({ balance: 0.3 });
    expect((await call('POST', `/admin/keys/${key.id}/topup`, { amount_rub: '1000.000001' })).json()).toEqual(
      { balance: 1000.300001 },
    );
    const entries = await app.ctx.storage.ledger.entriesForKey(key.id);
    expect(entries.map((e) => [e.kind, e.amount, e.balance_after, e.note])).toEqual([
      ['topup', 100_000, 100_000, null],
      ['topup', 200_000, 300_000, 'invoice 7'],
      ['topup', 1_000_000_001, 1_000_300_001, null],
    ]);
    const me = await app.http.inject({
      method: 'GET',
      url: '/me/balance',
      headers: { authorization: `Bearer ${key.key_value}` },
    });
    expect(me.json()).toEqual({ key_balance: 1000.300001 });
  });

  it.each([
    [{}, 400, 'missing_parameter'],
    [{ amount_rub: 0 }, 422, 'invalid_parameter'],
    [{ amount_rub: -5 }, 422, 'invalid_parameter'],
    [{ amount_rub: 0.0000001 }, 422, 'invalid_parameter'],
    [{ amount_rub: 'ten' }, 422, 'invalid_parameter'],
    [{ amount_rub: 1e12 }, 422, 'invalid_parameter'],
    [{ amount_rub: null }, 422, 'invalid_parameter'],
  ])('refuses %j with %i and writes nothing', async (body, status, code) => {
    const key = await newKey(await newAccount());
    expectError(await call('POST', `/admin/keys/${key.id}/topup`, body), status, code, 'amount_rub');
    expect(await app.ctx.storage.ledger.countForKey(key.id)).toBe(0);
  });

  it('refuses a bad note, an unknown field, and an unknown or deleted key', async () => {
    const key = await newKey(await newAccount());
    expectError(
      await call('POST', `/admin/keys/${key.id}/topup`, { amount_rub: 1, note: 5 }),
      422,
      'invalid_parameter',
      'note',
    );
    expectError(
      await call('POST', `/admin/keys/${key.id}/topup`, { amount_rub: 1, currency: 'RUB' }),
      422,
      'unknown_field',
      'currency',
    );
    expectError(await call('POST', '/admin/keys/99999999/topup', { amount_rub: 1 }), 404, 'not_found');
    await call('DELETE', `/admin/keys/${key.id}`);
    expectError(await call('POST', `/admin/keys/${key.id}/topup`, { amount_rub: 1 }), 404, 'not_found');
    expect(await app.ctx.storage.ledger.countForKey(key.id)).toBe(0);
  });
});

describe('PUT /admin/maintenance', () => {
  it('turns maintenance on and off', async () => {
    expect((await call('PUT', '/admin/maintenance', { enabled: true })).json()).toEqual({ enabled: true });
    expect(await app.ctx.storage.settings.get('maintenance')).toBe('on');
    expect((await call('PUT', '/admin/maintenance', { enabled: false })).json()).toEqual({ enabled: false });
    expect(await app.ctx.storage.settings.get('maintenance')).toBe('off');
  });

  it('refuses anything but a boolean', async () => {
    expectError(
      await call('PUT', '/admin/maintenance', { enabled: 'yes' }),
      422,
      'invalid_parameter',
      'enabled',
    );
    expectError(await call('PUT', '/admin/maintenance', {}), 422, 'invalid_parameter', 'enabled');
    expectError(
      await call('PUT', '/admin/maintenance', { enabled: true, why: 'x' }),
      422,
      'unknown_field',
      'why',
    );
    expect(await app.ctx.maintenance.isEnabled()).toBe(false);
  });
});

describe('models', () => {
  const base = {
    name: 'Acme Image',
    provider: 'Acme',
    kind: 'image',
    unit: 'shot',
    priceRub: 3.3,
    active: true,
    visible: true,
  };

  it('GET /admin/models lists every model, internal and inactive ones included, with their schemas', async () => {
    const res = await call('GET', '/admin/models');
    expect(res.statusCode).toBe(200);
    const models = res.json() as Record<string, any>[];
    const byId = new Map(models.map((m) => [m.id, m]));
    expect(byId.get('seedance-2:1080p')).toMatchObject({ visible: false, active: true });
    expect(byId.get('kling-1-6')).toMatchObject({ active: false });
    expect(byId.get('seedance-2')?.params_schema.properties.duration).toMatchObject({
      type: 'integer',
      minimum: 5,
      maximum: 15,
    });
    expect(byId.get('gpt-4o')).toMatchObject({
      unit: 'mtok',
      priceRub: expect.any(Number),
      priceOutputRub: expect.any(Number),
    });
  });

  it('PUT /admin/models/{id} creates, then replaces, and the public list follows', async () => {
    const created = await call('PUT', '/admin/models/acme-image', base);
    expect(created.statusCode).toBe(200);
    expect(created.json()).toMatchObject({
      id: 'acme-image',
      priceRub: 3.3,
      active: true,
      visible: true,
      params_schema: null,
    });
    const schema = { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] };
    const replaced = await call('PUT', '/admin/models/acme-image', {
      ...base,
      name: 'Acme Image 2',
      priceRub: 4.05,
      params_schema: schema,
    });
    expect(replaced.json()).toMatchObject({
      id: 'acme-image',
      name: 'Acme Image 2',
      priceRub: 4.05,
      params_schema: schema,
    });
    const listed = (await app.http.inject({ method: 'GET', url: '/public/models' })).json() as {
      id: string;
    }[];
    expect(listed.filter((m) => m.id === 'acme-image')).toEqual([
      {
        id: 'acme-image',
        name: 'Acme Image 2',
        provider: 'Acme',
        kind: 'image',
        unit: 'shot',
        priceRub: 4.05,
      },
    ]);
    expect((await app.ctx.catalog.get('acme-image'))?.priceMicro).toBe(4_050_000);
  });

  it('keeps a model with priceRub null for the admin, unlisted for clients', async () => {
    const res = await call('PUT', '/admin/models/acme-unpriced', { ...base, priceRub: null });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: 'acme-unpriced', priceRub: null });
    const all = (await call('GET', '/admin/models')).json() as { id: string; priceRub: number | null }[];
    expect(all.find((m) => m.id === 'acme-unpriced')).toMatchObject({ priceRub: null });
    const listed = (await app.http.inject({ method: 'GET', url: '/public/models' })).json() as {
      id: string;
    }[];
    expect(listed.map((m) => m.id)).not.toContain('acme-unpriced');
  });

  it.each([
    [{ ...base, kind: 'audio' }, 'kind'],
    [{ ...base, unit: 'minute' }, 'unit'],
    [{ ...base, name: '' }, 'name'],
    [{ ...base, provider: undefined }, 'provider'],
    [{ ...base, priceRub: -1 }, 'priceRub'],
    [{ ...base, priceRub: 1.0000001 }, 'priceRub'],
    [{ ...base, active: 'yes' }, 'active'],
    [{ ...base, params_schema: 'object' }, 'params_schema'],
    [{ ...base, route: { provider: 'fal' } }, 'route'],
    [{ ...base, id: 'other-id' }, 'id'],
  ])('refuses %j with 422 and changes nothing', async (body, param) => {
    const res = await call('PUT', '/admin/models/acme-refused', body);
    expectError(res, 422, 'invalid_parameter', param);
    expect(await app.ctx.catalog.get('acme-refused')).toBeUndefined();
  });

  it('refuses an id outside [a-z0-9._:-] and unknown fields', async () => {
    expectError(
      await call('PUT', `/admin/models/${encodeURIComponent('bad id')}`, base),
      422,
      'invalid_parameter',
      'id',
    );
    expectError(
      await call('PUT', '/admin/models/acme-x', { ...base, colour: 'red' }),
      422,
      'unknown_field',
      'colour',
    );
  });
});

describe('GET /admin/webhooks', () => {
  it('lists the deliveries that ran out of attempts', async () => {
    const key = await app.newKey();
    const now = Date.now();
    const row = (id: string, status: 'pending' | 'undelivered') => ({
      id,
      task_id: `task-${id}`,
      account_id: key.accountId,
      url: 'https://example.test/hook',
      payload: '{}',
      status,
      attempts: 3,
      next_attempt_at: now,
      last_status_code: 500,
      last_error: 'HTTP 500',
      created_at: now,
      updated_at: now,
    });
    await app.ctx.storage.db
      .insertInto('webhook_deliveries')
      .values([row('msg_dead', 'undelivered'), row('msg_live', 'pending')])
      .execute();
    const res = await call('GET', '/admin/webhooks?status=undelivered');
    expect(res.statusCode).toBe(200);
    const ids = (res.json() as { id: string }[]).map((d) => d.id);
    expect(ids).toContain('msg_dead');
    expect(ids).not.toContain('msg_live');
    expect((res.json() as any[]).find((d) => d.id === 'msg_dead')).toMatchObject({
      status: 'undelivered',
      attempts: 3,
      last_status_code: 500,
    });
  });

  it('refuses an unknown status or a bad limit', async () => {
    expectError(await call('GET', '/admin/webhooks?status=lost'), 422, 'invalid_parameter', 'status');
    for (const limit of ['0', '-1', 'abc', '1001', '2.5']) {
      expectError(
        await call('GET', `/admin/webhooks?status=undelivered&limit=${limit}`),
        422,
        'invalid_parameter',
        'limit',
      );
    }
    expect((await call('GET', '/admin/webhooks?status=undelivered&limit=1')).json()).toHaveLength(1);
  });
});

describe('POST /admin/accounts/{messaging_id}/login-link', () => {
  it('returns a one-time panel URL valid 15 minutes, storing only the token hash', async () => {
    const messagingId = await newAccount();
    const before = Date.now();
    const res = await call('POST', `/admin/accounts/${messagingId}/login-link`);
    expect(res.statusCode).toBe(201);
    const { url } = res.json() as { url: string };
    expect(url.startsWith(`${app.config.publicUrl}/panel/`)).toBe(true);
    const token = new URL(url).searchParams.get('token')!;
    expect(token.length).toBeGreaterThanOrEqual(32);

    const account = (await app.ctx.storage.accounts.byMessagingId(messagingId))!;
    const rows = await app.ctx.storage.db
      .selectFrom('panel_tokens')
      .selectAll()
      .where('account_id', '=', account.id)
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      token_hash: createHash('sha256').update(token).digest('hex'),
      kind: 'login_link',
      used_at: null,
    });
    expect(rows[0].expires_at - before).toBeGreaterThanOrEqual(15 * 60 * 1000 - 5);
    expect(rows[0].expires_at - Date.now()).toBeLessThanOrEqual(15 * 60 * 1000);
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it('answers 404 for an unknown account and stores nothing', async () => {
    const before = await countRows('panel_tokens');
    expectError(await call('POST', '/admin/accounts/987654323/login-link'), 404, 'not_found');
    expect(await countRows('panel_tokens')).toBe(before);
  });
});

describe('GET /admin/providers', () => {
  it('answers 200 with an empty list when PROVIDERS_FILE names no account', async () => {
    const res = await call('GET', '/admin/providers');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: [] });
  });
});
