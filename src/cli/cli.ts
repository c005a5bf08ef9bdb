// The `gengate` command line: the server and the operator commands of DESIGN.md section 5.
// The application (every service, provider and worker) is imported only by the commands that need
// it, so `migrate` and `help` start in a fraction of the time.
import type { Config } from '../config.js';
import type { AppContext } from '../context.js';
import { microToRub } from '../domain/billing/money.js';
import { AppError } from '../domain/errors.js';
import { presentKeyLimits } from '../domain/keys/limits.js';
import { presentDelivery } from '../http/presenters/webhooks.js';
import { readCatalogFile } from '../services/catalog.js';
import { demoBanner, seedDemoAccount } from '../services/demo.js';
import { allHealthy, checkProviders, formatCheckTable } from '../services/providers-check.js';
import { openDatabase } from '../storage/db.js';
import { checkLedger } from '../storage/ledger/ledger-check.js';
import { migrateToLatest } from '../storage/migrations.js';
import { listFlag, parseArgs } from './args.js';
import { paymentsCommand } from './payments.js';

const USAGE = `usage: gengate <command>
  serve [--role all|api|worker]          serve the API and/or run the workers (default: all)
  migrate                                apply database migrations
  account create --messaging-id N [--coefficient X]
  account show N
  key create --account N [--name S] [--models a,b] [--ips cidr,...] [--rate N]
             [--expires ISO-DATE] [--spend-limit RUB] [--spend-period day|week|month|total]
  key update ID [--models a,b|none] [--ips cidr,...|none] [--rate N|none]
             [--expires ISO-DATE|none] [--spend-limit RUB|none] [--spend-period day|week|month|total]
  key delete ID
  topup KEY_ID AMOUNT_RUB [--note S]
  adjust KEY_ID AMOUNT_RUB [--note S]     correct a balance (a negative amount debits)
  maintenance on|off
  models import FILE
  ledger check
  providers check                        one cheap authenticated call per provider: reachable, auth ok, latency
  webhooks redeliver ID                  send a webhook delivery again with fresh attempts
  login-link MESSAGING_ID                print a one-time panel sign-in link (valid 15 minutes)
  topups list [--status S] [--method M] [--messaging-id N] [--limit N] [--after ID]
  topups refund ID [--amount RUB]        refund a paid top-up (all of it by default)
  codes create --amount RUB [--count N] [--expires ISO_DATE]   print new top-up codes (shown once)
  console-link                           print a one-time operator console sign-in link (valid 15 minutes)`;

const cliActor = { actor: 'cli' };

/** --expires, --spend-limit and --spend-period as the API's fields (each read through `read`). */
function limitFlags(
  flags: Record<string, string | true>,
  read: (value: string | true | undefined, parse: (v: string) => unknown) => unknown,
): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  const asText = (v: string) => v;
  if (flags.expires !== undefined) fields.expires_at = read(flags.expires, asText);
  if (flags['spend-limit'] !== undefined) fields.spend_limit_rub = read(flags['spend-limit'], asText);
  if (flags['spend-period'] !== undefined) fields.spend_limit_period = read(flags['spend-period'], asText);
  return fields;
}

/** Returns an exit code, or undefined when the process should keep running (serve). */
export async function runCli(argv: string[], config: Config): Promise<number | undefined> {
  const { positional, flags } = parseArgs(argv);
  const [command, sub, ...rest] = positional;
  switch (command) {
    case 'serve':
      await serve(config, String(flags.role ?? 'all'));
      return undefined;
    case 'migrate': {
      const db = openDatabase(config);
      const applied = await migrateToLatest(db);
      console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
      await db.close();
      return 0;
    }
    case undefined:
    case 'help':
    case '--help':
      console.log(USAGE);
      return command ? 0 : 2;
    default:
      return withContext(config, (ctx) => operatorCommand(ctx, command, sub, rest, flags));
  }
}

async function withContext(config: Config, work: (ctx: AppContext) => Promise<number>): Promise<number> {
  const { buildContext } = await import('../app.js');
  const { ctx, db, redis } = await buildContext(config);
  try {
    return await work(ctx);
  } catch (error) {
    if (error instanceof AppError) {
      console.error(`error: ${error.message}`);
      return 1;
    }
    throw error;
  } finally {
    // Lets a key change made here reach the running servers before the connection goes.
    await ctx.keyInvalidation.close();
    redis?.disconnect();
    await db.close();
  }
}

async function operatorCommand(
  ctx: AppContext,
  command: string,
  sub: string | undefined,
  rest: string[],
  flags: Record<string, string | true>,
): Promise<number> {
  const print = (value: unknown) => console.log(JSON.stringify(value, null, 2));
  const nullable = (value: string | true | undefined, parse: (v: string) => unknown) =>
    value === undefined ? undefined : value === 'none' ? null : parse(String(value));
  switch (`${command} ${sub ?? ''}`.trim()) {
    case 'account create': {
      const account = await ctx.accounts.createAccount(
        { messaging_id: flags['messaging-id'], coefficient: flags.coefficient },
        cliActor,
      );
      print({
        messaging_id: account.messaging_id,
        coefficient: account.coefficient_ppm / 1e6,
        webhook_secret: account.webhook_secret,
      });
      return 0;
    }
    case 'account show': {
      const account = await ctx.accounts.accountByMessagingId(rest[0]);
      const keys = await ctx.accounts.keysOf(account.id);
      print({
        messaging_id: account.messaging_id,
        keys: keys.map((k) => ({ id: k.id, name: k.name, balance: microToRub(k.balance) })),
      });
      return 0;
    }
    case 'key create': {
      const account = await ctx.accounts.accountByMessagingId(flags.account);
      const { key, secret } = await ctx.accounts.createKey(
        account.id,
        {
          name: typeof flags.name === 'string' ? flags.name : undefined,
          allowed_models: listFlag(flags.models),
          allowed_ip_cidrs: listFlag(flags.ips),
          rate_limit_per_min: flags.rate === undefined ? undefined : Number(flags.rate),
          ...limitFlags(flags, (value) => value),
        },
        cliActor,
      );
      print({
        id: key.id,
        key_value: secret,
        ...presentKeyLimits(key, ctx.clock.now()),
        note: 'the full key is shown only now',
      });
      return 0;
    }
    case 'key update': {
      const patch: Record<string, unknown> = {};
      const models = nullable(flags.models, (v) => listFlag(v));
      const ips = nullable(flags.ips, (v) => listFlag(v));
      const rate = nullable(flags.rate, Number);
      if (models !== undefined) patch.allowed_models = models;
      if (ips !== undefined) patch.allowed_ip_cidrs = ips;
      if (rate !== undefined) patch.rate_limit_per_min = rate;
      Object.assign(patch, limitFlags(flags, nullable));
      const key = await ctx.accounts.updateKeyRestrictions(Number(rest[0]), patch, cliActor);
      print({
        id: key.id,
        allowed_models: key.allowed_models,
        allowed_ip_cidrs: key.allowed_ip_cidrs,
        rate_limit_per_min: key.rate_limit_per_min,
        ...presentKeyLimits(key, ctx.clock.now()),
      });
      return 0;
    }
    case 'key delete':
      await ctx.accounts.deleteKey(Number(rest[0]), cliActor);
      console.log('deleted');
      return 0;
    case 'maintenance on':
    case 'maintenance off':
      print({ enabled: await ctx.maintenance.set(sub === 'on') });
      return 0;
    case 'models import': {
      const file = rest[0];
      if (!file) throw new AppError('missing_parameter', 'models import needs a FILE');
      const models = readCatalogFile(file, ctx.clock.now());
      await ctx.catalog.importModels(models);
      console.log(`imported ${models.length} models`);
      return 0;
    }
    case 'webhooks redeliver': {
      if (!rest[0]) throw new AppError('missing_parameter', 'webhooks redeliver needs a delivery ID');
      print(presentDelivery(await ctx.webhooks.redeliver(rest[0], cliActor)));
      return 0;
    }
    case 'providers check': {
      const rows = await checkProviders(ctx.taskProviders);
      if (rows.length === 0) {
        console.log('no providers configured: every model routes to the simulator');
        return 0;
      }
      console.log(formatCheckTable(rows));
      return allHealthy(rows) ? 0 : 1;
    }
    case 'ledger check': {
      const violations = await checkLedger(ctx.storage.db);
      if (violations.length === 0) {
        console.log('ledger ok: every invariant holds');
        return 0;
      }
      console.error(`ledger check failed: ${violations.length} violation(s)`);
      for (const v of violations) console.error(`  - ${v.rule}: ${v.subject}: ${v.detail}`);
      return 1;
    }
    default: {
      if (command === 'console-link' && sub === undefined) {
        if (!ctx.operator.sessions.enabled) {
          console.error('the console is off: set ADMIN_TOKEN to turn it on');
          return 1;
        }
        const link = await ctx.operator.sessions.createLink(cliActor);
        console.log(`${ctx.config.publicUrl}/console/login?token=${link.token}`);
        console.error(`one-time console sign-in link, valid until ${new Date(link.expiresAt).toISOString()}`);
        return 0;
      }
      const payments = await paymentsCommand(ctx, `${command} ${sub ?? ''}`.trim(), rest, flags);
      if (payments !== undefined) return payments;
      if (command === 'login-link' && sub !== undefined) {
        const account = await ctx.accounts.accountByMessagingId(sub);
        const link = await ctx.panel.sessions.createLoginLink(account.id, cliActor);
        console.log(`${ctx.config.publicUrl}/panel/login?token=${link.token}`);
        console.error(`one-time sign-in link, valid until ${new Date(link.expiresAt).toISOString()}`);
        return 0;
      }
      if (command === 'topup' || command === 'adjust') {
        const [keyId, amount] = [sub, rest[0]];
        const note = typeof flags.note === 'string' ? flags.note : undefined;
        const balance = await ctx.accounts[command](Number(keyId), amount, note, cliActor);
        print({ balance: microToRub(balance) });
        return 0;
      }
      console.error(USAGE);
      return 2;
    }
  }
}

async function serve(config: Config, role: string): Promise<void> {
  if (!['all', 'api', 'worker'].includes(role))
    throw new Error(`--role must be all, api or worker, got ${role}`);
  const [{ buildGengate }, { startWorkers }, { startMetricsServer }] = await Promise.all([
    import('../app.js'),
    import('../workers/index.js'),
    import('../http/metrics-server.js'),
  ]);
  const gengate = await buildGengate(config);
  const { ctx, http } = gengate;
  const log = (msg: string, err?: unknown) => http.log.error({ err }, msg);
  const info = (msg: string, fields: Record<string, unknown>) => http.log.info(fields, msg);
  const workers = role === 'api' ? [] : await startWorkers(ctx, log, info);
  // The worker role's only listener: Prometheus scrapes every process (see docs/metrics.md).
  const metricsServer =
    config.metricsPort === undefined
      ? undefined
      : await startMetricsServer(ctx.metrics, config.host, config.metricsPort, config.metricsToken);
  if (role !== 'worker') {
    await http.listen({ host: config.host, port: config.port });
    // Seeded only once listening: a start that fails (port taken) must not use up the one showing of the key.
    const secret = await seedDemoAccount(ctx);
    // For the person at the terminal: stderr, so that stdout carries only the JSON logs.
    console.error(
      `gengate listening on ${config.publicUrl} (${ctx.storage.engine}); docs at ${config.publicUrl}/docs`,
    );
    if (secret) console.error(demoBanner(secret, config.publicUrl));
  } else {
    console.error(`gengate worker running (${ctx.storage.engine})`);
  }
  // Worker loops unref their timers; without a listening server nothing else would keep the process up.
  const keepAlive = role === 'worker' ? setInterval(() => {}, 1 << 30) : undefined;
  const shutdown = async () => {
    clearInterval(keepAlive);
    await Promise.all(workers.map((w) => w.stop()));
    await metricsServer?.close();
    await gengate.close();
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}
