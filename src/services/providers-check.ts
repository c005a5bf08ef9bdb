// `gengate providers check`: one cheap authenticated call per configured provider (never a
// generation), with its latency, so an operator sees a wrong key or an unreachable base URL before a
// customer does.
import type { TaskProviderRegistry } from '../providers/task-registry.js';

export interface ProviderCheckRow {
  provider: string;
  type: string;
  reachable: boolean | null;
  authOk: boolean | null;
  latencyMs: number | null;
  detail: string;
}

const CHECK_TIMEOUT_MS = 15_000;

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export async function checkProviders(registry: TaskProviderRegistry): Promise<ProviderCheckRow[]> {
  return Promise.all(registry.configured().map(checkOne));
}

/** The check of one configured provider (the re-check of an account marked down uses it too). */
export async function checkProvider(registry: TaskProviderRegistry, name: string): Promise<ProviderCheckRow> {
  const entry = registry.configured().find(({ settings }) => settings.name === name);
  if (!entry)
    return {
      provider: name,
      type: '-',
      reachable: null,
      authOk: null,
      latencyMs: null,
      detail: 'not configured',
    };
  return checkOne(entry);
}

async function checkOne({
  settings,
  provider,
}: ReturnType<TaskProviderRegistry['configured']>[number]): Promise<ProviderCheckRow> {
  const row = { provider: settings.name, type: settings.type };
  if (!provider?.check)
    return { ...row, reachable: null, authOk: null, latencyMs: null, detail: 'no check for this type' };
  const started = performance.now();
  try {
    const result = await withTimeout(provider.check(), CHECK_TIMEOUT_MS);
    return {
      ...row,
      reachable: result.reachable,
      authOk: result.authOk,
      latencyMs: Math.round(performance.now() - started),
      detail: result.detail ?? '',
    };
  } catch (error) {
    return {
      ...row,
      reachable: false,
      authOk: null,
      latencyMs: null,
      detail: (error as Error).message,
    };
  }
}

/** A plain-text table; "-" where a figure does not apply. */
export function formatCheckTable(rows: ProviderCheckRow[]): string {
  const yesNo = (value: boolean | null) => (value === null ? '-' : value ? 'yes' : 'NO');
  const table = [
    ['provider', 'type', 'reachable', 'auth ok', 'latency', 'detail'],
    ...rows.map((r) => [
      r.provider,
      r.type,
      yesNo(r.reachable),
      yesNo(r.authOk),
      r.latencyMs === null ? '-' : `${r.latencyMs} ms`,
      r.detail.replace(/\s+/g, ' ').slice(0, 120),
    ]),
  ];
  const widths = table[0].map((_, column) => Math.max(...table.map((line) => line[column].length)));
  return table
    .map((line) =>
      line
        .map((cell, i) => cell.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** Every provider that has a check answered and accepted our credentials. */
export function allHealthy(rows: ProviderCheckRow[]): boolean {
  return rows.every((r) => r.reachable !== false && r.authOk !== false);
}
