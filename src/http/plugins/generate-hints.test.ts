// POST /generate's refusals for request-level mistakes carry a hint; the error shape, status, code
// and param are those of the refusal without it, and other routes are untouched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestKey } from '../../testing/app.js';

let app: TestApp;
let key: TestKey;

beforeAll(async () => {
  app = await createTestApp();
  key = await app.newKey({ balanceRub: 1000 });
});
afterAll(async () => app.dispose());

async function post(
  payload: string,
  headers: Record<string, string> = { ...key.auth, 'content-type': 'application/json' },
) {
  const res = await app.http.inject({ method: 'POST', url: '/generate', headers, payload });
  const body = res.json() as { error: { message: string; type: string; code: string; param: string | null } };
  expect(Object.keys(body)).toEqual(['error']);
  return { status: res.statusCode, ...body.error };
}

describe('hints on POST /generate refusals', () => {
  it('the key without "Bearer", or in X-Api-Key: 401 with the header to send', async () => {
    const bare = await post('{}', { authorization: key.secret, 'content-type': 'application/json' });
    expect(bare).toMatchObject({ status: 401, code: 'invalid_api_key', type: 'authentication_error' });
    expect(bare.message).toBe(
      'Invalid or missing API key. Send the key as "Authorization: Bearer sk_live_…" (the word Bearer, a space, then the key)',
    );
    expect(bare.message).not.toContain(key.secret);
    const header = await post('{}', { 'x-api-key': key.secret, 'content-type': 'application/json' });
    expect(header.message).toBe(
      'Invalid or missing API key. Send the key in the Authorization header: "Authorization: Bearer sk_live_…"',
    );
    // A wrong key in the right place gets no hint: there is no mistake of form to point at.
    const wrong = await post('{}', {
      authorization: 'Bearer sk_live_nope',
      'content-type': 'application/json',
    });
    expect(wrong.message).toBe('Invalid or missing API key');
  });

  it('JSON sent as a form (curl -d without a Content-Type), or with single quotes: 415/400 with the fix', async () => {
    const form = await post('{"params":{"model_name":"seedance-2"}}', {
      ...key.auth,
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(form).toMatchObject({ status: 415, code: 'unsupported_media_type' });
    expect(form.message).toBe(
      'Content-Type must be application/json. The body is JSON: add the header "Content-Type: application/json" (curl -d alone sends a form)',
    );
    const quotes = await post("{'params': {'model_name': 'seedance-2'}}");
    expect(quotes).toMatchObject({ status: 400, code: 'invalid_json' });
    expect(quotes.message).toMatch(
      /^Request body is not valid JSON: .*\. JSON takes double quotes around names and strings$/,
    );
  });

  it('the body or params as a string of JSON: send the object itself', async () => {
    const body = await post(JSON.stringify(JSON.stringify({ params: { model_name: 'seedance-2' } })));
    expect(body).toMatchObject({ status: 400, code: 'invalid_json' });
    expect(body.message).toBe(
      'Request body must be a JSON object. The body is a string holding JSON: send the object itself, not a string',
    );
    const params = await post(JSON.stringify({ params: JSON.stringify({ model_name: 'seedance-2' }) }));
    expect(params).toMatchObject({ status: 422, code: 'invalid_parameter', param: 'params' });
    expect(params.message).toBe(
      'params must be an object. params is a string holding JSON: send the object itself, not a string',
    );
  });

  it('the model under `model`, in another case, misspelt or with a variant suffix', async () => {
    const model = await post(JSON.stringify({ params: { model: 'seedance-2', prompt: 'x' } }));
    expect(model).toMatchObject({ status: 422, code: 'model_name_required', param: 'model_name' });
    expect(model.message).toBe(
      'params.model_name is required. Name the model in params.model_name (params.model is not read)',
    );
    const upper = await post(JSON.stringify({ params: { model_name: 'Seedance-2' } }));
    expect(upper).toMatchObject({ status: 404, code: 'model_not_found', param: 'model_name' });
    expect(upper.message).toBe(
      'Model not found or inactive: Seedance-2. Did you mean "seedance-2"? GET /public/models lists the models',
    );
    const typo = await post(JSON.stringify({ params: { model_name: 'kling-21' } }));
    expect(typo.message).toContain('Did you mean "kling-2-1"?');
    const variant = await post(JSON.stringify({ params: { model_name: 'veo-3-fast:audio' } }));
    expect(variant.status).toBe(404);
    expect(variant.message).toBe(
      'Model not found or inactive: veo-3-fast:audio. Use "veo-3-fast": a variant is chosen from the parameters, not named',
    );
    const unknown = await post(JSON.stringify({ params: { model_name: 'zzz-unknown' } }));
    expect(unknown.message).toBe(
      'Model not found or inactive: zzz-unknown. GET /public/models lists the models',
    );
    // Never a text model: those are not served here.
    const text = await post(JSON.stringify({ params: { model_name: 'gpt-4o-minii' } }));
    expect(text.message).not.toContain('gpt-4o-mini"');
  });

  it('402: what the key has beside the cost, in rubles', async () => {
    const poor = await app.newKey({ balanceRub: 10.5 });
    const res = await app.http.inject({
      method: 'POST',
      url: '/generate',
      headers: poor.auth,
      payload: { params: { model_name: 'seedance-2', prompt: 'x' } },
    });
    expect(res.statusCode).toBe(402);
    expect(res.json().error).toEqual({
      message:
        'Balance is below the cost of this request (45 RUB). This key has 10.5 RUB available (GET /me/balance)',
      type: 'insufficient_quota',
      code: 'insufficient_balance',
      param: null,
    });
  });

  it("403: the key's own restrictions, told to its holder", async () => {
    const narrow = await app.newKey({ restrictions: { allowed_models: ['sora-2', 'flux-1-1-pro'] } });
    const model = await app.http.inject({
      method: 'POST',
      url: '/generate',
      headers: narrow.auth,
      payload: { params: { model_name: 'seedance-2', prompt: 'x' } },
    });
    expect(model.statusCode).toBe(403);
    expect(model.json().error).toMatchObject({
      code: 'model_not_allowed',
      param: 'model_name',
      message: 'This key may not use seedance-2. This key may use: sora-2, flux-1-1-pro',
    });
    const fenced = await app.newKey({ restrictions: { allowed_ip_cidrs: ['10.0.0.0/8'] } });
    const ip = await app.http.inject({
      method: 'POST',
      url: '/generate',
      headers: fenced.auth,
      remoteAddress: '192.0.2.7',
      payload: { params: { model_name: 'seedance-2', prompt: 'x' } },
    });
    expect(ip.statusCode).toBe(403);
    expect(ip.json().error).toMatchObject({
      code: 'ip_not_allowed',
      message: 'Caller IP address is not allowed for this key. This request comes from 192.0.2.7',
    });
  });

  it('an Idempotency-Key stores the hinted refusal and replays it as first sent', async () => {
    const poor = await app.newKey({ balanceRub: 10 });
    const send = () =>
      app.http.inject({
        method: 'POST',
        url: '/generate',
        headers: { ...poor.auth, 'idempotency-key': 'hint-replay-0001' },
        payload: { params: { model_name: 'seedance-2', prompt: 'x' } },
      });
    const first = await send();
    expect(first.statusCode).toBe(402);
    expect(first.json().error.message).toContain('This key has 10 RUB available');
    await app.ctx.accounts.topup(poor.keyId, 100, 'more', { actor: 'test' });
    const replay = await send();
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(first.body);
  });

  it('keeps the answers it has no hint for, and other routes, exactly as they were', async () => {
    const missing = await post(JSON.stringify({ params: {} }));
    expect(missing).toEqual({
      status: 422,
      message: 'params.model_name is required',
      type: 'invalid_request_error',
      code: 'model_name_required',
      param: 'model_name',
    });
    const other = await app.http.inject({
      method: 'POST',
      url: '/v1/videos',
      headers: { authorization: key.secret, 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(other.json().error.message).toBe('Invalid or missing API key');
    const ok = await app.http.inject({
      method: 'POST',
      url: '/generate',
      headers: key.auth,
      payload: { params: { model_name: 'seedance-2', prompt: 'x' } },
    });
    expect(ok.statusCode).toBe(202);
  });
});
