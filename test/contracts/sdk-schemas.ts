// JSON Schemas of an installed SDK's TypeScript types, for the contract tests. The providers' SDKs are
// generated (by Stainless) from the providers' OpenAPI documents, so their types are the machine-
// readable contract we hold gengate's answers to: each type named in an entry file of this directory
// becomes a draft-07 JSON Schema (ts-json-schema-generator), validated with ajv.
//
// Generating takes seconds (it builds a TypeScript program over the SDK), so the result is cached in
// node_modules/.cache/gengate-contracts/<package>@<version>/, keyed by everything it depends on (the
// entry file's text, the generator's and TypeScript's versions, the options); a new SDK version, a
// changed entry file or a changed generator misses the cache and regenerates. Nothing is committed.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';

const ROOT = join(import.meta.dirname, '..', '..');
const require = createRequire(import.meta.url);

/** What ts-json-schema-generator is asked for; part of the cache key. */
const GENERATOR_OPTIONS = {
  // Every exported declaration of the entry file is a root.
  type: '*',
  // Every exported SDK type becomes a definition under its own name (`ResponseUsage`,
  // `ChatCompletion.Choice`), so that a failure names it and the stream-event union stays small.
  expose: 'export',
  topRef: true,
  // Descriptions are not needed to validate, and are not copied anywhere.
  jsDoc: 'none',
  // OpenAI's and Anthropic's objects are open: their documents add no `additionalProperties: false`,
  // the SDKs' types list what a client reads, and gengate may add fields (e.g. `task_id` on an
  // error). A field the SDK types must still be there and be of its type.
  additionalProperties: true,
  // The SDK is type-checked by tsc with the repository's tsconfig; the generator only reads it.
  skipTypeCheck: true,
} as const;

export interface SdkContract {
  /** The package and version the schemas were generated from, and the cache file that holds them. */
  source: { package: string; version: string; entry: string; cacheFile: string; generated: boolean };
  /** Every definition: the entry file's exports and the SDK types they use, by name. */
  definitions: Record<string, Record<string, unknown>>;
  /** The schema errors of `value` against the named definition ([] when it conforms). */
  errors(definition: string, value: unknown): string[];
}

function packageVersion(name: string): string {
  // Read from disk: the packages' `exports` do not expose package.json.
  const file = join(ROOT, 'node_modules', name, 'package.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

/** The cache directory; GENGATE_CONTRACTS_CACHE moves it (e.g. to time a cold run). */
function cacheDirectory(): string {
  return process.env.GENGATE_CONTRACTS_CACHE ?? join(ROOT, 'node_modules', '.cache', 'gengate-contracts');
}

function generate(entry: string): Record<string, unknown> {
  const { createGenerator } =
    require('ts-json-schema-generator') as typeof import('ts-json-schema-generator');
  const generator = createGenerator({
    ...GENERATOR_OPTIONS,
    path: entry,
    // The repository's compiler options: strict null checks (so `string | null` stays nullable) and
    // NodeNext resolution of the SDK's subpath exports.
    tsconfig: join(ROOT, 'tsconfig.json'),
  });
  return generator.createSchema('*') as Record<string, unknown>;
}

/**
 * The schemas of the types exported by `entry` (a file of this directory that imports the types
 * from `packageName`), from the cache or generated on a miss.
 */
export function loadSdkContract(
  packageName: string,
  entry: string,
  options: {
    /**
     * Fields an SDK type declares but the SDK computes on the client, never sent by the API (by type
     * name): left out of the schema, so an answer is not required to carry them.
     */
    clientSide?: Record<string, string[]>;
    /**
     * Fields an SDK type requires (as `T | null`) that the provider's own documented examples leave
     * out (by type name): not required, still checked when present.
     */
    mayBeAbsent?: Record<string, string[]>;
  } = {},
): SdkContract {
  const version = packageVersion(packageName);
  const key = createHash('sha256')
    .update(
      JSON.stringify({
        entry: readFileSync(entry, 'utf8'),
        options: GENERATOR_OPTIONS,
        generator: packageVersion('ts-json-schema-generator'),
        typescript: packageVersion('typescript'),
      }),
    )
    .digest('hex')
    .slice(0, 16);
  const name = entry.split('/').at(-1)?.replace(/\.ts$/, '') ?? 'entry';
  const cacheFile = join(
    cacheDirectory(),
    `${packageName.replace('/', '+')}@${version}`,
    `${name}-${key}.json`,
  );
  let schema: Record<string, unknown>;
  let generated = false;
  try {
    schema = JSON.parse(readFileSync(cacheFile, 'utf8'));
  } catch {
    schema = generate(entry);
    generated = true;
    // Written whole and renamed into place: test files that generate at the same time never read
    // half a file.
    mkdirSync(dirname(cacheFile), { recursive: true });
    const partial = `${cacheFile}.${process.pid}.partial`;
    writeFileSync(partial, JSON.stringify(schema));
    renameSync(partial, cacheFile);
  }
  const definitions = schema.definitions as Record<string, Record<string, unknown>>;
  for (const [type, fields] of Object.entries(options.clientSide ?? {})) {
    const definition = definitions[type] as { properties?: Record<string, unknown>; required?: string[] };
    for (const field of fields) {
      if (!definition?.properties?.[field]) throw new Error(`${type} has no field ${field}`);
      delete definition.properties[field];
      definition.required = definition.required?.filter((name) => name !== field);
    }
  }
  for (const [type, fields] of Object.entries(options.mayBeAbsent ?? {})) {
    const definition = definitions[type] as { required?: string[] };
    for (const field of fields) {
      if (!definition?.required?.includes(field)) throw new Error(`${type} does not require ${field}`);
      definition.required = definition.required.filter((name) => name !== field);
    }
  }
  const ajv = new Ajv({ strict: false, allErrors: true });
  const id = `sdk:${packageName}@${version}/${name}`;
  ajv.addSchema({ $id: id, definitions });
  const compiled = new Map<string, ValidateFunction>();
  return {
    source: { package: packageName, version, entry, cacheFile, generated },
    definitions,
    errors(definition, value) {
      if (!(definition in definitions)) throw new Error(`${definition} is not a type of ${name}`);
      const validate =
        compiled.get(definition) ??
        ajv.compile({ $ref: `${id}#/definitions/${encodeURIComponent(definition)}` });
      compiled.set(definition, validate);
      return validate(value) ? [] : describe(validate.errors ?? []);
    },
  };
}

function describe(errors: ErrorObject[]): string[] {
  return errors.map(
    (e) => `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`,
  );
}
