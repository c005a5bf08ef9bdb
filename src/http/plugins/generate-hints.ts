// Hints on POST /generate's refusals for the mistakes visible in the request as a whole (those inside
// params are hinted where params are validated, domain/tasks/param-hints.ts): the key without
// "Bearer", a JSON body sent as a form or with single quotes, params or the whole body sent as a
// string of JSON, the model under `model`, a model id in another case, misspelt or with an internal
// variant suffix. The hint is appended to the error's message; status, code, param and every other
// field stay as they are. Only that route uses it, so no other answer pays for it.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { microToRub } from '../../domain/billing/money.js';
import type { CatalogModel } from '../../domain/catalog/model.js';
import { isPublic } from '../../domain/catalog/model.js';
import { AppError } from '../../domain/errors.js';
import { closestName, withHint } from '../../domain/tasks/param-hints.js';
import type { RawJsonBody } from '../raw-json.js';

export interface HintInput {
  code: string;
  param: string | null;
  /** The raw body bytes as text (at most a few KB are looked at). */
  raw: string;
  /** The parsed body, when it parsed. */
  body: unknown;
  authorization: string | undefined;
  headers: Record<string, unknown>;
  /** Public media model ids, for model-name suggestions. */
  modelIds: () => Promise<string[]>;
  /** The calling key's allowed models (null = all) and the caller's address, once authenticated. */
  allowedModels: string[] | null;
  ip: string;
  /** The calling key's available and held rubles, once it is authenticated. */
  balance: () => Promise<{ available: number; held: number } | undefined>;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function parsesToObject(text: string): boolean {
  try {
    return isObject(JSON.parse(text));
  } catch {
    return false;
  }
}

function authHint(input: HintInput): string | undefined {
  const auth = input.authorization?.trim();
  if (auth && !/^bearer\s/i.test(auth) && /^sk_/.test(auth))
    return 'Send the key as "Authorization: Bearer sk_live_…" (the word Bearer, a space, then the key)';
  if (!auth && (input.headers['x-api-key'] !== undefined || input.headers['api-key'] !== undefined))
    return 'Send the key in the Authorization header: "Authorization: Bearer sk_live_…"';
  return undefined;
}

function bodyHint(input: HintInput): string | undefined {
  const start = input.raw.trimStart().slice(0, 1);
  if (input.code === 'unsupported_media_type' && (start === '{' || start === '['))
    return 'The body is JSON: add the header "Content-Type: application/json" (curl -d alone sends a form)';
  if (input.code === 'invalid_json' && /^\{\s*'/.test(input.raw.trimStart()))
    return 'JSON takes double quotes around names and strings';
  if (input.code === 'invalid_json' && typeof input.body === 'string' && parsesToObject(input.body))
    return 'The body is a string holding JSON: send the object itself, not a string';
  return undefined;
}

function paramsHint(input: HintInput): string | undefined {
  const params = isObject(input.body) ? input.body.params : undefined;
  if (input.param === 'params' && typeof params === 'string' && parsesToObject(params))
    return 'params is a string holding JSON: send the object itself, not a string';
  if (input.code === 'model_name_required' && isObject(params) && typeof params.model === 'string')
    return 'Name the model in params.model_name (params.model is not read)';
  return undefined;
}

async function modelHint(input: HintInput): Promise<string | undefined> {
  if (input.code !== 'model_not_found') return undefined;
  const params = isObject(input.body) && isObject(input.body.params) ? input.body.params : undefined;
  const given = params?.model_name;
  if (typeof given !== 'string' || given.length > 200) return undefined;
  const ids = await input.modelIds();
  const base = given.includes(':') ? given.slice(0, given.indexOf(':')) : undefined;
  if (base !== undefined && ids.includes(base))
    return `Use "${base}": a variant is chosen from the parameters, not named`;
  const close = closestName(given, ids);
  if (close) return `Did you mean "${close}"? GET /public/models lists the models`;
  return 'GET /public/models lists the models';
}

/** What the key has, so that a cost in rubles is not mistaken for one in micro-rubles or the like. */
async function balanceHint(input: HintInput): Promise<string | undefined> {
  if (input.code !== 'insufficient_balance') return undefined;
  const balance = await input.balance();
  if (!balance) return undefined;
  const held = balance.held > 0 ? `, ${balance.held} RUB held by running tasks` : '';
  return `This key has ${balance.available} RUB available${held} (GET /me/balance)`;
}

export async function generateHint(input: HintInput): Promise<string | undefined> {
  if (input.code === 'invalid_api_key') return authHint(input);
  if (input.code === 'insufficient_balance') return balanceHint(input);
  // The key's own restrictions, told to its holder: the mistake is a model or a network it excludes.
  if (input.code === 'model_not_allowed' && input.allowedModels)
    return input.allowedModels.length > 0
      ? `This key may use: ${input.allowedModels.join(', ')}`
      : 'This key may use no model';
  if (input.code === 'ip_not_allowed') return `This request comes from ${input.ip}`;
  return bodyHint(input) ?? paramsHint(input) ?? (await modelHint(input));
}

const MAX_RAW = 4096;

export interface GenerateHintDeps {
  models: () => Promise<CatalogModel[]>;
  /** Micro-rubles of a key. */
  balanceOf: (keyId: number) => Promise<{ balance: number; held: number } | undefined>;
}

/**
 * The hints of one route. `around` wraps the handler's work, so that a refusal leaves it hinted and
 * an Idempotency-Key stores (and replays) the hinted answer as it was first sent. `onSend` hints the
 * guard's 401 and 403, which come before the handler and are never stored.
 */
export class GenerateHints {
  constructor(private readonly deps: GenerateHintDeps) {}

  private input(request: FastifyRequest, code: string, param: string | null): HintInput {
    const captured = request.body as RawJsonBody | undefined;
    return {
      code,
      param,
      raw: captured?.raw ? captured.raw.subarray(0, MAX_RAW).toString('utf8') : '',
      body: captured?.value,
      authorization: request.headers.authorization,
      headers: request.headers,
      allowedModels: request.apiKey?.allowedModels ?? null,
      ip: request.ip,
      modelIds: async () =>
        (await this.deps.models()).filter((m) => isPublic(m) && m.kind !== 'text').map((m) => m.id),
      balance: async () => {
        const key = request.apiKey;
        const micro = key ? await this.deps.balanceOf(key.keyId) : undefined;
        return micro && { available: microToRub(micro.balance), held: microToRub(micro.held) };
      },
    };
  }

  async around<T>(request: FastifyRequest, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      throw withHint(error, await generateHint(this.input(request, error.code, error.param)));
    }
  }

  readonly onSend = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    if ((reply.statusCode !== 401 && reply.statusCode !== 403) || typeof payload !== 'string') return payload;
    let answer: { error?: { code?: unknown; message?: unknown } };
    try {
      answer = JSON.parse(payload);
    } catch {
      return payload;
    }
    const error = answer.error;
    const code = error?.code;
    if ((code !== 'invalid_api_key' && code !== 'ip_not_allowed') || typeof error?.message !== 'string')
      return payload;
    const text = await generateHint(this.input(request, code, null));
    if (!text) return payload;
    error.message = `${error.message}. ${text}`;
    return JSON.stringify(answer);
  };
}
