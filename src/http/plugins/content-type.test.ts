// Request bodies: JSON only, within BODY_LIMIT_BYTES, well-formed, and every refusal in the one
// error shape with nothing written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createTestApp, type TestApp } from '../../testing/app.js';

const LIMIT = 2048;
let app: TestApp;
beforeAll(async () => {
  app = await createTestApp({ env: { BODY_LIMIT_BYTES: String(LIMIT) } });
});
afterAll(() => app.dispose());

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

async function accountCount(): Promise<number> {
  const row = await app.ctx.storage.db
    .selectFrom('accounts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

function createAccount(payload: string, contentType?: string, extraHeaders: Record<string, string> = {}) {
  const headers: Record<string, string> = { ...admin, ...extraHeaders };
  if (contentType) headers['content-type'] = contentType;
  return app.http.inject({ method: 'POST', url: '/admin/accounts', headers, payload });
}

function expectRefused(
  res: { statusCode: number; headers: Record<string, unknown>; json(): unknown },
  status: number,
  code: string,
) {
  expect(res.statusCode).toBe(status);
  expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
  expect(res.json()).toEqual({
    error: { message: expect.any(String), type: 'invalid_request_error', code, param: null },
  });
}

describe('request bodies', () => {
  it('accepts JSON (any charset parameter or case) and creates the account', async () => {
    const before = await accountCount();
    expect((await createAccount('{"messaging_id": 501}', 'application/json')).statusCode).toBe(201);
    expect((await createAccount('{"messaging_id": 502}', 'Application/JSON; charset=utf-8')).statusCode).toBe(
      201,
    );
    expect(await accountCount()).toBe(before + 2);
  });

  it('answers 413 above BODY_LIMIT_BYTES, and writes nothing', async () => {
    const before = await accountCount();
    const payload = JSON.stringify({ messaging_id: 601, coefficient: 1, padding: 'x'.repeat(LIMIT) });
    expectRefused(await createAccount(payload, 'application/json'), 413, 'payload_too_large');
    expect(await accountCount()).toBe(before);
  });

  it('answers 413 from a declared Content-Length before reading the body', async () => {
    const res = await createAccount('{"messaging_id": 602}', 'application/json', {
      'content-length': String(LIMIT * 10),
    });
    expectRefused(res, 413, 'payload_too_large');
    expect(
      (await app.http.inject({ method: 'GET', url: '/admin/accounts/602', headers: admin })).statusCode,
    ).toBe(404);
  });

  it('accepts a body of exactly the limit', async () => {
    const base = JSON.stringify({ messaging_id: 603, coefficient: 1 });
    const payload = `${base.slice(0, -1)}${' '.repeat(LIMIT - base.length)}}`;
    expect(Buffer.byteLength(payload)).toBe(LIMIT);
    expect((await createAccount(payload, 'application/json')).statusCode).toBe(201);
  });

  it.each([
    ['text/plain', '{"messaging_id": 701}'],
    ['application/x-www-form-urlencoded', 'messaging_id=701'],
    [
      'multipart/form-data; boundary=x',
      '--x\r\nContent-Disposition: form-data; name="messaging_id"\r\n\r\n701\r\n--x--',
    ],
    ['application/xml', '<messaging_id>701</messaging_id>'],
    [undefined, '{"messaging_id": 701}'],
  ])('answers 415 to Content-Type %s, and writes nothing', async (contentType, payload) => {
    const before = await accountCount();
    expectRefused(await createAccount(payload, contentType), 415, 'unsupported_media_type');
    expect(await accountCount()).toBe(before);
  });

  it.each([
    ['malformed JSON', '{"messaging_id": 801'],
    ['an empty body', ''],
    ['a prototype-poisoning body', '{"messaging_id": 802, "__proto__": {"admin": true}}'],
    ['a constructor-poisoning body', '{"messaging_id": 803, "constructor": {"prototype": {"admin": true}}}'],
    ['a JSON array', '[{"messaging_id": 804}]'],
    ['a JSON string', '"messaging_id"'],
  ])('answers 400 invalid_json to %s, and writes nothing', async (_name, payload) => {
    const before = await accountCount();
    expectRefused(await createAccount(payload, 'application/json'), 400, 'invalid_json');
    expect(await accountCount()).toBe(before);
  });

  it('treats an empty JSON body on DELETE as no body', async () => {
    const key = await app.newKey({ balanceRub: 0 });
    const res = await app.http.inject({
      method: 'DELETE',
      url: `/admin/keys/${key.keyId}`,
      headers: { ...admin, 'content-type': 'application/json' },
      payload: '',
    });
    expect(res.statusCode).toBe(204);
    expect((await app.http.inject({ method: 'GET', url: '/me/balance', headers: key.auth })).statusCode).toBe(
      401,
    );
  });

  it('rejects unknown top-level fields with 422 unknown_field naming the field', async () => {
    const before = await accountCount();
    const res = await createAccount('{"messaging_id": 901, "coefficent": 2}', 'application/json');
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({
      code: 'unknown_field',
      param: 'coefficent',
      type: 'invalid_request_error',
    });
    expect(await accountCount()).toBe(before);
  });

  it('authenticates before reading the body: an unauthenticated oversized or malformed body is 401', async () => {
    const big = await app.http.inject({
      method: 'POST',
      url: '/admin/accounts',
      headers: { 'content-type': 'application/json' },
      payload: 'x'.repeat(LIMIT * 2),
    });
    expect(big.statusCode).toBe(401);
    const malformed = await app.http.inject({
      method: 'POST',
      url: '/admin/accounts',
      headers: { 'content-type': 'text/plain' },
      payload: '{',
    });
    expect(malformed.statusCode).toBe(401);
  });
});

describe('request bodies on POST /generate', () => {
  async function taskAndLedgerCounts() {
    const count = async (table: 'tasks' | 'ledger_entries') =>
      Number(
        (
          await app.ctx.storage.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    return { tasks: await count('tasks'), ledger: await count('ledger_entries') };
  }

  async function generate(payload: string, contentType?: string) {
    const key = await app.newKey({ balanceRub: 100 });
    const headers: Record<string, string> = { ...key.auth };
    if (contentType) headers['content-type'] = contentType;
    const before = await taskAndLedgerCounts();
    const res = await app.http.inject({ method: 'POST', url: '/generate', headers, payload });
    const after = await taskAndLedgerCounts();
    return { res, written: after.tasks - before.tasks + (after.ledger - before.ledger) };
  }

  const valid = { params: { model_name: 'flux-1-1-pro', prompt: 'a lighthouse at dusk' } };

  it.for([
    [
      '413 above the limit',
      JSON.stringify({ params: { ...valid.params, prompt: 'x'.repeat(LIMIT) } }),
      'application/json',
      413,
      'payload_too_large',
    ],
    ['415 for text/plain', JSON.stringify(valid), 'text/plain', 415, 'unsupported_media_type'],
    ['415 without a Content-Type', JSON.stringify(valid), undefined, 415, 'unsupported_media_type'],
    [
      '400 for malformed JSON',
      '{"params": {"model_name": "flux-1-1-pro"',
      'application/json',
      400,
      'invalid_json',
    ],
    [
      '422 for an unknown top-level field',
      JSON.stringify({ ...valid, webhook: 'https://example.com' }),
      'application/json',
      422,
      'unknown_field',
    ],
  ] as const)(
    '%s, in the error shape, with no task and no ledger entry',
    async ([, payload, contentType, status, code]) => {
      const { res, written } = await generate(payload, contentType);
      expect(res.statusCode).toBe(status);
      expect(res.json()).toEqual({
        error: {
          message: expect.any(String),
          type: 'invalid_request_error',
          code,
          param: code === 'unknown_field' ? 'webhook' : null,
        },
      });
      expect(written).toBe(0);
    },
  );

  it('refuses prototype keys at the top level and in params, writing nothing', async () => {
    for (const payload of [
      '{"params": {"model_name": "flux-1-1-pro", "prompt": "p"}, "__proto__": {"admin": true}}',
      '{"params": {"model_name": "flux-1-1-pro", "prompt": "p", "__proto__": {"admin": true}}}',
    ]) {
      const { res, written } = await generate(payload, 'application/json');
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      expect(res.statusCode).toBeLessThan(500);
      expect(written).toBe(0);
    }
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('a valid body within the limit is accepted (the control for the refusals above)', async () => {
    const { res, written } = await generate(JSON.stringify(valid), 'application/json; charset=utf-8');
    expect(res.statusCode).toBe(202);
    expect(written).toBe(2); // the task and its hold
  });
});
