// The chaos run's checks must be able to fail: each rule is shown a clean end state (every check
// passes) and then one broken in the way it guards against (only that check fails).
import { describe, expect, it } from 'vitest';
import { type CheckInput, runChecks, TIMEOUT_ERROR } from './checks.js';
import type { TaskRequest } from './load.js';

interface State {
  tasks: {
    id: string;
    status: string;
    error: string | null;
    params: string;
    attempts: number;
    webhook_url: string | null;
  }[];
  keys: { balance: number; held: number; low: number; low_held: number };
  kinds: { kind: string; total: number }[];
  references: { task_id: string; holds: number; captures: number; releases: number }[];
  deliveries: { task_id: string; status: string }[];
  usage: { status: string; n: number }[];
  openHolds: number;
}

const prompt = (nonce: string, tag = '[sim:delay=100]') =>
  JSON.stringify({ prompt: `chaos ${nonce} ${tag}` });

function cleanState(): State {
  return {
    tasks: [
      {
        id: 't1',
        status: 'completed',
        error: null,
        params: prompt('n1'),
        attempts: 1,
        webhook_url: 'http://h/hook',
      },
      {
        id: 't2',
        status: 'failed',
        error: TIMEOUT_ERROR,
        params: prompt('n2', '[sim:fail=timeout]'),
        attempts: 1,
        webhook_url: 'http://h/hook',
      },
    ],
    // 1000 credited: 700 on balances, 0 held, 300 captured.
    keys: { balance: 700, held: 0, low: 200, low_held: 0 },
    kinds: [
      { kind: 'topup', total: 1000 },
      { kind: 'hold', total: 600 },
      { kind: 'capture', total: 300 },
      { kind: 'release', total: 300 },
    ],
    references: [
      { task_id: 't1', holds: 1, captures: 1, releases: 1 },
      { task_id: 't2', holds: 1, captures: 1, releases: 1 },
    ],
    deliveries: [
      { task_id: 't1', status: 'delivered' },
      { task_id: 't2', status: 'undelivered' },
    ],
    usage: [{ status: 'completed', n: 3 }],
    openHolds: 0,
  };
}

function requests(): TaskRequest[] {
  return [
    { nonce: 'n1', directive: 'success', key: 0, answers: [{ status: 202, taskId: 't1' }] },
    {
      nonce: 'n2',
      directive: 'timeout',
      key: 0,
      idempotencyKey: 'chaos-n2',
      answers: [{ status: 0 }, { status: 202, taskId: 't2' }, { status: 202, taskId: 't2' }],
    },
  ];
}

/** A stand-in for the database: each query of checks.ts answered from `state`. */
function fakeDb(state: State): CheckInput['db'] {
  const query = async (text: string) => {
    const rows = text.includes('from tasks')
      ? state.tasks
      : text.includes('from api_keys')
        ? [state.keys]
        : text.includes('group by kind')
          ? state.kinds
          : text.includes('group by task_id')
            ? state.references
            : text.includes('from webhook_deliveries')
              ? state.deliveries
              : text.includes('from usage_records')
                ? state.usage
                : text.includes('from chat_holds')
                  ? [{ n: String(state.openHolds) }]
                  : undefined;
    if (!rows) throw new Error(`unexpected query: ${text}`);
    return { rows };
  };
  return { query } as unknown as CheckInput['db'];
}

async function failing(state: State, change: Partial<Omit<CheckInput, 'db'>> = {}): Promise<string[]> {
  const results = await runChecks({
    db: fakeDb(state),
    tasks: requests(),
    submissions: [],
    acknowledged: new Map([['t1', 'completed']]),
    creditedMicro: 1000,
    ...change,
  });
  return results.filter((r) => r.violations.length > 0).map((r) => r.name);
}

describe('chaos checks', () => {
  it('pass on a clean end state', async () => {
    expect(await failing(cleanState())).toEqual([]);
  });

  it('catch an accepted task that is not final', async () => {
    const state = cleanState();
    state.tasks[0].status = 'processing';
    expect(await failing(state)).toContain('every accepted task is final');
  });

  it('catch a finished job failed as a timeout', async () => {
    const state = cleanState();
    state.tasks[0] = { ...state.tasks[0], status: 'failed', error: TIMEOUT_ERROR };
    state.deliveries[0].status = 'undelivered';
    expect(await failing(state)).toEqual(['no finished upstream job failed as a timeout']);
  });

  it('catch money that does not add up, an overdraft, or a top-up the ledger lacks', async () => {
    const lost = cleanState();
    lost.keys.balance = 699;
    expect(await failing(lost)).toEqual(['Σ balances + Σ held + Σ captured = Σ top-ups, no overdraft']);
    const below = cleanState();
    below.keys.low = -1;
    expect(await failing(below)).toEqual(['Σ balances + Σ held + Σ captured = Σ top-ups, no overdraft']);
    expect(await failing(cleanState(), { creditedMicro: 1005 })).toEqual([
      'Σ balances + Σ held + Σ captured = Σ top-ups, no overdraft',
    ]);
  });

  it('catch a double settlement', async () => {
    const state = cleanState();
    state.references[0].releases = 2;
    expect(await failing(state)).toEqual(['no double settlement']);
  });

  it('catch a task submitted upstream twice (stored twice, or two accepted submits in the logs)', async () => {
    const stored = cleanState();
    stored.tasks[0].attempts = 2;
    expect(await failing(stored)).toEqual(['no task submitted upstream twice']);
    const submissions = [
      { taskId: 't1', stored: false, jobId: 'a', process: 'worker-1', time: 1 },
      { taskId: 't1', stored: true, jobId: 'b', process: 'worker-2', time: 2 },
    ];
    expect(await failing(cleanState(), { submissions })).toEqual(['no task submitted upstream twice']);
  });

  it('catch an Idempotency-Key that made two tasks', async () => {
    const state = cleanState();
    state.tasks.push({ ...state.tasks[1], id: 't3', status: 'failed' });
    state.deliveries.push({ task_id: 't3', status: 'undelivered' });
    expect(await failing(state)).toEqual(['no Idempotency-Key made two tasks']);
    const tasks = requests();
    tasks[1].answers.push({ status: 202, taskId: 't9' });
    expect(await failing(cleanState(), { tasks })).toContain('no Idempotency-Key made two tasks');
  });

  it('catch a webhook missing, pending, or delivered but never acknowledged', async () => {
    const missing = cleanState();
    missing.deliveries.pop();
    expect(await failing(missing)).toEqual([
      'every final task has its webhook delivered or recorded undelivered',
    ]);
    const pending = cleanState();
    pending.deliveries[1].status = 'pending';
    expect(await failing(pending)).toEqual([
      'every final task has its webhook delivered or recorded undelivered',
    ]);
    expect(await failing(cleanState(), { acknowledged: new Map() })).toEqual([
      'every final task has its webhook delivered or recorded undelivered',
    ]);
  });

  it('catch a chat hold left open', async () => {
    const state = cleanState();
    state.openHolds = 1;
    expect(await failing(state)).toEqual(['no chat hold open after the run']);
  });
});
