// The OpenAPI document against a real OpenAPI 3.1 validator and against the server itself: every
// route is in it, its security is what the guard enforces, the statuses a request really gets are
// documented, and the request body examples of POST /generate create tasks that complete.
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookPayload } from '../../services/webhooks/outbox.js';
import { ADMIN_TOKEN } from '../../testing/app.js';
import {
  createTaskTestApp,
  expectLedgerClean,
  freePort,
  type TaskTestApp,
  waitForFinal,
} from '../../testing/tasks.js';
import { paramsComponentNames, pascalParamsName } from './model-params.js';
import { OPERATIONS } from './operations.js';
import { HIDDEN_ROUTES, isHiddenRoute } from './plugin.js';
import { defaultCatalogDocument } from './standalone.js';

type Json = Record<string, any>;

const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule.default }).default ??
  addFormatsModule) as typeof addFormatsModule.default;

/** A JSON Schema 2020-12 validator that knows the document's components (OpenAPI 3.1 schemas are 2020-12). */
function schemaValidator(doc: Json) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, discriminator: false });
  addFormats(ajv);
  for (const keyword of ['discriminator', 'example', 'xml', 'externalDocs']) ajv.addKeyword(keyword);
  ajv.addSchema({ $id: 'doc', components: doc.components } as never);
  return (schema: Json) => ajv.compile(rewriteRefs(schema));
}

/** '#/components/…' refs point into the document: made absolute against the registered 'doc'. */
function rewriteRefs(value: unknown): any {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `doc${v}` : rewriteRefs(v),
      ]),
    );
  }
  return value;
}

/** Fastify's '/tasks/:task_id' → OpenAPI's '/tasks/{task_id}'. */
const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** A concrete URL for an OpenAPI path, with dummy path parameters. */
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, 'x1');

let app: TaskTestApp;
let base: string;
let doc: Json;

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  app = await createTaskTestApp({ config: { port, publicUrl: base } });
  await app.http.listen({ host: '127.0.0.1', port });
  const res = await app.http.inject({ method: 'GET', url: '/openapi.json' });
  expect(res.statusCode).toBe(200);
  doc = res.json();
});

afterAll(async () => {
  await expectLedgerClean(app);
  await app.dispose();
});

function operations(): { path: string; method: string; op: Json }[] {
  return Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json).map(([method, op]) => ({ path, method, op: op as Json })),
  );
}

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1 for a real validator, and every $ref resolves', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(() => validator.resolveRefs()).not.toThrow();
    // The validator is not a formality: a response without its description is refused.
    const broken = structuredClone(doc);
    delete broken.paths['/generate'].post.responses['202'].description;
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it('/docs/json serves the same document as /openapi.json', async () => {
    const ui = await app.http.inject({ method: 'GET', url: '/docs/json' });
    expect(ui.statusCode).toBe(200);
    expect(ui.json()).toEqual(doc);
  });

  it('has every schema compile as JSON Schema 2020-12', () => {
    const compile = schemaValidator(doc);
    for (const name of Object.keys(doc.components.schemas)) compile({ $ref: `#/components/schemas/${name}` });
    for (const { op } of operations()) {
      for (const media of Object.values((op.requestBody?.content ?? {}) as Json)) compile(media.schema);
      for (const response of Object.values(op.responses as Json))
        for (const media of Object.values((response.content ?? {}) as Json)) compile(media.schema);
    }
  });

  it('describes the webhook body the server sends: both final states validate, anything else does not', () => {
    const hook = doc.webhooks.taskFinished.post;
    expect(hook.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/WebhookEvent',
    });
    expect(hook.parameters.map((p: Json) => p.name)).toEqual([
      'webhook-id',
      'webhook-timestamp',
      'webhook-signature',
    ]);
    const validate = schemaValidator(doc)({ $ref: '#/components/schemas/WebhookEvent' });
    const task = { id: 't1', account_id: 1, webhook_url: 'https://h.example/hook' };
    const completed = webhookPayload({
      ...task,
      status: 'completed',
      result: { video_url: 'https://g.example/objects/a.mp4', duration: 5 },
      error: null,
    });
    const failed = webhookPayload({
      ...task,
      status: 'failed',
      result: null,
      error: 'upstream refused the prompt',
    });
    for (const body of [completed, failed]) expect(validate(JSON.parse(body)), body).toBe(true);
    expect(validate({ task_id: 't1', status: 'processing' })).toBe(false);
    expect(validate({ task_id: 't1', status: 'failed', result: null })).toBe(false);
  });

  it('holds every registered route with its methods, except the hidden ones listed in plugin.ts', () => {
    const inventory = app.http.routeInventory;
    expect(inventory.length).toBeGreaterThan(30);
    const documented = new Set(operations().map(({ path, method }) => `${method.toUpperCase()} ${path}`));
    const missing: string[] = [];
    const hidden = new Set<string>();
    for (const route of inventory) {
      // HEAD mirrors GET (Fastify's exposeHeadRoutes); OPTIONS * is the CORS preflight.
      if (route.method === 'HEAD' || route.method === 'OPTIONS') continue;
      if (isHiddenRoute(route.url)) {
        hidden.add(route.url);
        continue;
      }
      const key = `${route.method} ${openApiPath(route.url)}`;
      if (!documented.has(key)) missing.push(key);
    }
    expect(missing).toEqual([]);
    // Each hidden pattern hides something real, and nothing else is left out.
    for (const pattern of HIDDEN_ROUTES) expect([...hidden].some((url) => pattern.test(url))).toBe(true);
    expect(documented.size).toBe(
      new Set(
        inventory
          .filter((r) => r.method !== 'HEAD' && r.method !== 'OPTIONS' && !isHiddenRoute(r.url))
          .map((r) => `${r.method} ${openApiPath(r.url)}`),
      ).size,
    );
  });

  it('describes every operation: an id, a request body where one is read, a 2xx answer and the error shape', () => {
    const described = new Set(Object.keys(OPERATIONS));
    for (const { path, method, op } of operations()) {
      const key = `${method.toUpperCase()} ${path}`;
      expect(described.has(key), `${key} has no entry in operations.ts`).toBe(true);
      expect(op.operationId, key).toBeTypeOf('string');
      const statuses = Object.keys(op.responses);
      expect(
        statuses.some((s) => /^2\d\d$/.test(s)),
        key,
      ).toBe(true);
      for (const status of statuses.filter(
        (s) => /^[45]\d\d$/.test(s) && !(key === 'GET /readyz' && s === '503'),
      )) {
        expect(op.responses[status].content['application/json'].schema, `${key} ${status}`).toEqual({
          $ref: path.startsWith('/v1/messages')
            ? '#/components/schemas/AnthropicError'
            : '#/components/schemas/Error',
        });
      }
      if (
        ['POST', 'PUT', 'PATCH'].includes(method.toUpperCase()) &&
        !/rotate|login-link|redeliver/.test(path)
      )
        expect(op.requestBody, `${key} request body`).toBeDefined();
    }
    // No stale entry: each described operation exists.
    const present = new Set(operations().map(({ path, method }) => `${method.toUpperCase()} ${path}`));
    expect([...described].filter((key) => !present.has(key))).toEqual([]);
  });

  it('gives openapi-typescript usable types: a union over the models, no member-less free-form objects', async () => {
    const types = astToString(await openapiTS(structuredClone(doc) as never, { defaultNonNullable: false }));
    const union = /GenerateRequest: \{\s*params: ([^;]+);/.exec(types)?.[1] ?? '';
    for (const name of Object.values(
      doc.components.schemas.GenerateRequest.properties.params.discriminator.mapping,
    ))
      expect(union).toContain(`components["schemas"]["${String(name).split('/').pop()}"]`);
    const seedance = types.slice(types.indexOf('Seedance2Params: {'));
    expect(seedance.slice(0, 300)).toContain('model_name: "seedance-2";');
    expect(seedance.slice(0, 600)).toContain('duration?: number;');
    // `Record<string, never>` is what a bare {type: object} becomes: an object nothing may be put in.
    const neverObjects = types.split('\n').filter((line) => line.includes('Record<string, never>'));
    expect(neverObjects.filter((line) => !/^export type (webhooks|\$defs) =/.test(line))).toEqual([]);
  }, 30_000);

  it('documents the real success statuses: 202 for POST /generate, 201 and 204 on the admin API', () => {
    const responses = (path: string, method: string) => Object.keys(doc.paths[path][method].responses);
    expect(responses('/generate', 'post')).toContain('202');
    expect(responses('/generate', 'post')).not.toContain('200');
    expect(responses('/admin/accounts', 'post')).toContain('201');
    expect(responses('/admin/accounts/{messaging_id}/keys', 'post')).toContain('201');
    expect(responses('/admin/keys/{id}', 'delete')).toContain('204');
    expect(doc.paths['/admin/keys/{id}'].delete.responses['204'].content).toBeUndefined();
  });

  it("has each model's params as a named component and a GenerateRequest discriminated by model_name", async () => {
    const models = (await app.http.inject({ method: 'GET', url: '/public/models' })).json() as Json[];
    const media = models.filter((m) => m.kind !== 'text').map((m) => m.id as string);
    expect(media).toContain('seedance-2');
    const schemas = doc.components.schemas;
    const params = schemas.GenerateRequest.properties.params;
    expect(params.discriminator.propertyName).toBe('model_name');
    expect(Object.keys(params.discriminator.mapping).sort()).toEqual([...media].sort());
    for (const id of media) {
      const name = pascalParamsName(id);
      expect(params.discriminator.mapping[id]).toBe(`#/components/schemas/${name}`);
      expect(params.oneOf).toContainEqual({ $ref: `#/components/schemas/${name}` });
      expect(schemas[name].properties.model_name.const).toBe(id);
      expect(schemas[name].required).toContain('model_name');
      // The component is the catalog's params schema, as GET /public/models/{id} gives it.
      const detail = (await app.http.inject({ method: 'GET', url: `/public/models/${id}` })).json();
      for (const [field, schema] of Object.entries(detail.params_schema.properties as Json))
        if (field !== 'model_name') expect(schemas[name].properties[field], `${id}.${field}`).toEqual(schema);
    }
    expect(schemas.Seedance2Params.properties.duration).toMatchObject({ minimum: 5, maximum: 15 });
    const body = doc.paths['/generate'].post.requestBody;
    expect(body.required).toBe(true);
    expect(body.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/GenerateRequest' });
  });

  it('validates a wrong parameter against the model it names, and accepts each example', () => {
    const compile = schemaValidator(doc);
    const check = compile({ $ref: '#/components/schemas/GenerateRequest' });
    const examples = doc.paths['/generate'].post.requestBody.content['application/json'].examples as Json;
    expect(Object.keys(examples).length).toBeGreaterThanOrEqual(9);
    for (const [id, example] of Object.entries(examples)) expect(check(example.value), id).toBe(true);
    expect(check({ params: { model_name: 'seedance-2', prompt: 'x', duration: 30 } })).toBe(false);
    expect(check({ params: { model_name: 'seedance-2', prompt: 'x', quality: 'high' } })).toBe(false);
    expect(check({ params: { model_name: 'gpt-image-1', prompt: 'x', quality: 'high' } })).toBe(true);
    expect(check({ model_name: 'seedance-2', prompt: 'x' })).toBe(false);
  });

  it('names params components by the documented rule', () => {
    expect(pascalParamsName('seedance-2')).toBe('Seedance2Params');
    expect(pascalParamsName('kling-2-1')).toBe('Kling2_1Params');
    expect(pascalParamsName('flux-1-1-pro')).toBe('Flux1_1ProParams');
    expect(pascalParamsName('gpt-image-1')).toBe('GptImage1Params');
    expect(pascalParamsName('nano-banana')).toBe('NanoBananaParams');
    expect(pascalParamsName('veo-3-fast')).toBe('Veo3FastParams');
    const names = paramsComponentNames(['a-b', 'a.b', 'flux-11-pro', 'flux-1-1-pro']);
    expect(names.get('a-b')).toBe('Params.a-b');
    expect(names.get('a.b')).toBe('Params.a.b');
    expect(names.get('flux-11-pro')).toBe('Flux11ProParams');
    expect(names.get('flux-1-1-pro')).toBe('Flux1_1ProParams');
  });

  it('follows the catalog: a model the operator adds is in the next document', async () => {
    const put = await app.http.inject({
      method: 'PUT',
      url: '/admin/models/openapi-test-model',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: {
        name: 'OpenAPI test model',
        provider: 'Test',
        kind: 'image',
        unit: 'shot',
        priceRub: 1,
        params_schema: { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] },
      },
    });
    expect(put.statusCode).toBe(200);
    try {
      const next = (await app.http.inject({ method: 'GET', url: '/openapi.json' })).json();
      expect(next.components.schemas.OpenapiTestModelParams.required).toEqual(['model_name', 'prompt']);
      expect(
        next.components.schemas.GenerateRequest.properties.params.discriminator.mapping['openapi-test-model'],
      ).toBe('#/components/schemas/OpenapiTestModelParams');
    } finally {
      await app.http.inject({
        method: 'PUT',
        url: '/admin/models/openapi-test-model',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        payload: {
          name: 'OpenAPI test model',
          provider: 'Test',
          kind: 'image',
          unit: 'shot',
          priceRub: 1,
          active: false,
        },
      });
    }
  });
});

describe('the document against the server', () => {
  it('has the security the guard enforces: a key, the admin token, or none', async () => {
    const expected: Record<string, string> = {};
    for (const { path, method, op } of operations()) {
      const key = `${method.toUpperCase()} ${path}`;
      const scheme = op.security.length === 0 ? 'none' : Object.keys(op.security[0])[0];
      expected[key] = scheme;
      if (
        path.startsWith('/public/') ||
        [
          '/v1/models',
          '/healthz',
          '/readyz',
          '/version',
          '/metrics',
          '/status',
          '/status.json',
          '/objects/{name}',
        ].includes(path) ||
        path.startsWith('/hooks/')
      )
        expect(scheme, key).toBe('none');
      else if (path.startsWith('/admin/')) expect(scheme, key).toBe('adminToken');
      else expect(scheme, key).toBe('apiKey');

      // Without credentials a protected operation answers 401 before anything else, an open one never does.
      const res = await app.http.inject({
        method: method.toUpperCase() as 'GET',
        url: concrete(path),
        ...(method === 'get' || method === 'delete' ? {} : { payload: {} }),
      });
      if (scheme === 'none') expect(res.statusCode, key).not.toBe(401);
      else {
        expect(res.statusCode, key).toBe(401);
        // The Messages API answers in Anthropic's shape (its SDKs read error.type).
        if (path.startsWith('/v1/messages')) expect(res.json().error.type).toBe('authentication_error');
        else expect(res.json().error.code).toBe('invalid_api_key');
      }
      expect(Object.keys(op.responses), `${key} answered ${res.statusCode}`).toContain(
        String(res.statusCode),
      );
    }
    expect(doc.security).toBeUndefined();
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['adminToken', 'apiKey']);
  });

  it('documents the headers of an answer: X-Request-Id, X-Api-Version, rate limits and Idempotency-Key', async () => {
    const op = doc.paths['/generate'].post;
    expect(op.parameters).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
    expect(op.parameters).toContainEqual({ $ref: '#/components/parameters/XRequestId' });
    const headers = Object.keys(op.responses['202'].headers);
    expect(headers).toEqual(
      expect.arrayContaining(['X-Request-Id', 'X-Api-Version', 'RateLimit-Remaining', 'Idempotent-Replayed']),
    );
    expect(Object.keys(op.responses['429'].headers)).toContain('Retry-After');
    const key = await app.newKey({ balanceRub: 100 });
    const res = await app.http.inject({
      method: 'GET',
      url: '/me/balance',
      headers: { ...key.auth, 'x-request-id': 'doc-check-1' },
    });
    expect(res.headers['x-request-id']).toBe('doc-check-1');
    expect(res.headers['x-api-version']).toBe(doc.info.version);
    for (const name of Object.keys(doc.paths['/me/balance'].get.responses['200'].headers))
      expect(res.headers[name.toLowerCase()], name).toBeDefined();
  });

  it("drives POST /generate from the document's examples over HTTP: 202, documented bodies, tasks complete", async () => {
    const key = await app.newKey({ balanceRub: 5000 });
    const compile = schemaValidator(doc);
    const op = doc.paths['/generate'].post;
    const accepted = compile(op.responses['202'].content['application/json'].schema);
    const taskSchema = compile({ $ref: '#/components/schemas/Task' });
    const examples = op.requestBody.content['application/json'].examples as Json;
    const ids: string[] = [];
    for (const [model, example] of Object.entries(examples)) {
      const res = await fetch(`${base}/generate`, {
        method: 'POST',
        headers: { ...key.auth, 'content-type': 'application/json' },
        body: JSON.stringify(example.value),
      });
      const body = (await res.json()) as Json;
      expect(res.status, `${model}: ${JSON.stringify(body)}`).toBe(202);
      expect(accepted(body), model).toBe(true);
      ids.push(body.task_id);
    }
    for (const id of ids) {
      const task = await waitForFinal(app, key, id, 30_000);
      expect(task.status, JSON.stringify(task)).toBe('completed');
      const res = await fetch(`${base}/tasks/${id}`, { headers: key.auth });
      expect(taskSchema(await res.json())).toBe(true);
    }
  }, 60_000);

  it('answers refusals in the documented Error shape with a documented status', async () => {
    const key = await app.newKey({ balanceRub: 1 });
    const error = schemaValidator(doc)({ $ref: '#/components/schemas/Error' });
    const op = doc.paths['/generate'].post;
    const examples = op.requestBody.content['application/json'].examples as Json;
    const bodies = [
      { model_name: 'seedance-2', prompt: 'x' },
      { params: { model_name: 'nope' } },
      { params: { model_name: 'seedance-2', prompt: 'x', duration: 99 } },
      examples['seedance-2'].value, // 45 RUB on a 1 RUB key: 402
      {},
    ];
    for (const body of bodies) {
      const res = await app.http.inject({
        method: 'POST',
        url: '/generate',
        headers: key.auth,
        payload: body,
      });
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      expect(Object.keys(op.responses), JSON.stringify(body)).toContain(String(res.statusCode));
      expect(error(res.json()), res.body).toBe(true);
      const documentedCodes = Object.keys(
        op.responses[String(res.statusCode)].content['application/json'].examples,
      );
      expect(documentedCodes, res.body).toContain(res.json().error.code);
    }
  });
});

describe('the error examples of POST /generate', () => {
  it('are the messages the server really answers, hints included', async () => {
    const key = await app.newKey({ balanceRub: 10.5 });
    const examples = (status: number) =>
      doc.paths['/generate'].post.responses[String(status)].content['application/json'].examples as Json;
    const cases: [Json, number, string][] = [
      [{ model_name: 'seedance-2' }, 422, 'unknown_field'],
      [{ params: { model_name: 'Seedance-2' } }, 404, 'model_not_found'],
      [{ params: { model_name: 'kling-2-1' } }, 400, 'missing_parameter'],
      [{ params: { model_name: 'seedance-2', prompt: 'x', duration: '5' } }, 422, 'invalid_parameter'],
      [{ params: { model_name: 'seedance-2', prompt: 'x' } }, 402, 'insufficient_balance'],
    ];
    for (const [body, status, code] of cases) {
      const res = await app.http.inject({
        method: 'POST',
        url: '/generate',
        headers: key.auth,
        payload: body,
      });
      expect(res.statusCode, res.body).toBe(status);
      expect(res.json(), code).toEqual(examples(status)[code].value);
    }
  });
});

describe('scripts/openapi.ts (defaultCatalogDocument)', () => {
  it('prints the same document as a running server with the default catalog, without listening', async () => {
    const printed = (await defaultCatalogDocument()) as Json;
    expect((await new Validator().validate(structuredClone(printed))).valid).toBe(true);
    expect(Object.keys(printed.paths).sort()).toEqual(Object.keys(doc.paths).sort());
    const mapping = (d: Json) => d.components.schemas.GenerateRequest.properties.params.discriminator.mapping;
    expect(mapping(printed)).toEqual(mapping(doc));
    expect(printed.paths['/generate']).toEqual(doc.paths['/generate']);
  }, 30_000);
});
