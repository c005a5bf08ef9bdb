// multipart/form-data bodies of text fields, for POST /v1/videos: the official openai SDK always
// sends videos.create that way. Nested names follow the SDK's encoding (`extra_body[seed]` → an
// object, `reference_image_urls[]` → an array). File parts are refused: uploads are not supported.
// The captured `raw` is a canonical serialization of the fields, not the bytes: a client's retry
// encodes the same fields with a new random boundary, and the Idempotency-Key fingerprint must match.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.js';
import type { RawJsonBody } from './raw-json.js';

const NAME = /^([^[\]]+)((?:\[[^[\]]*\])*)$/;
const MAX_DEPTH = 4;
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

const malformed = (detail: string) =>
  new AppError('invalid_json', `Request body is not valid multipart/form-data: ${detail}`);

function pathOf(name: string): string[] {
  const match = NAME.exec(name);
  if (!match) throw malformed(`bad field name ${JSON.stringify(name)}`);
  const path = [match[1], ...[...match[2].matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1])];
  if (path.length > MAX_DEPTH) throw malformed(`field name ${JSON.stringify(name)} is nested too deeply`);
  if (path.some((part) => FORBIDDEN.has(part)))
    throw malformed(`field name ${JSON.stringify(name)} is not allowed`);
  return path;
}

/** Puts `value` at `path` ("" segments append to an array), refusing a name given twice. */
function assign(target: Record<string, unknown>, path: string[], value: string, name: string): void {
  let node: Record<string, unknown> | unknown[] = target;
  for (let i = 0; i < path.length; i++) {
    const part = path[i];
    const last = i === path.length - 1;
    const nextIsArray = !last && path[i + 1] === '';
    if (Array.isArray(node)) {
      if (part !== '') throw malformed(`field ${JSON.stringify(name)} mixes a list and an object`);
      if (!last) throw malformed(`field ${JSON.stringify(name)}: lists of objects are not supported`);
      node.push(value);
      return;
    }
    if (last) {
      if (Object.hasOwn(node, part))
        throw new AppError('invalid_parameter', `Field ${path[0]} is given twice`, path[0]);
      node[part] = value;
      return;
    }
    const existing: unknown = Object.hasOwn(node, part) ? node[part] : undefined;
    if (existing === undefined) {
      const child: Record<string, unknown> | unknown[] = nextIsArray ? [] : {};
      node[part] = child;
      node = child;
    } else if (typeof existing === 'object' && existing !== null && Array.isArray(existing) === nextIsArray) {
      node = existing as Record<string, unknown> | unknown[];
    } else {
      throw malformed(`field ${JSON.stringify(name)} conflicts with another field`);
    }
  }
}

/** The text fields of a multipart body as one object, and their canonical bytes. */
export async function parseFormFields(
  raw: Buffer,
  contentType: string,
): Promise<{ value: Record<string, unknown>; canonical: Buffer }> {
  let form: FormData;
  try {
    form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw malformed('the parts cannot be read');
  }
  const value: Record<string, unknown> = {};
  const entries: [string, string][] = [];
  for (const [name, part] of form) {
    if (typeof part !== 'string') {
      throw new AppError(
        'invalid_parameter',
        `File uploads are not supported (${name}): give input_reference as {"image_url": "https://…"}`,
        pathOf(name)[0],
      );
    }
    assign(value, pathOf(name), part, name);
    entries.push([name, part]);
  }
  return { value, canonical: Buffer.from(`multipart/form-data\n${JSON.stringify(entries)}`) };
}

/** Call after captureRawJsonBodies in the same scope: multipart bodies become RawJsonBody too. */
export function captureFormBodies(scope: FastifyInstance): void {
  scope.addContentTypeParser(
    'multipart/form-data',
    { parseAs: 'buffer' },
    async (request: FastifyRequest, raw: Buffer) => {
      try {
        const { value, canonical } = await parseFormFields(raw, String(request.headers['content-type']));
        return { raw: canonical, value, form: true } satisfies FormBody;
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        return { raw, error, form: true } satisfies FormBody;
      }
    },
  );
}

export interface FormBody extends RawJsonBody {
  form: true;
}

/** True when the body came as multipart/form-data (its values are text, to coerce by schema). */
export function isFormBody(body: unknown): boolean {
  return (body as Partial<FormBody> | undefined)?.form === true;
}
