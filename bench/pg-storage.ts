// The database side of one hot key on PostgreSQL, without HTTP: how many new tasks with their holds
// and chat requests (hold, then settlement with the usage row) per second one process gets through
// Storage, with N requests in flight on one key: batched into one statement per round (what gengate
// runs), through the generic group commit (one savepoint each), and with one transaction or
// statement per request (what it ran before issue 17).
// The two are alternated round by round, so a busy machine slows both alike.
//   node bin/run-ts.mjs bench/pg-storage.ts [seconds per round, 3] [rounds, 3] [in flight, 32]
import { uuidV7 } from '../src/domain/ids.js';
import { Storage } from '../src/storage/storage.js';
import { newTaskRow, seedKey, seedTask } from '../src/testing/storage-fixtures.js';
import { freshSchema } from './pg-schema.js';

const [seconds = 3, rounds = 3, inFlight = 32] = process.argv.slice(2).map(Number);

/** Runs `one` from `inFlight` loops for `seconds`; returns completions per second. */
async function rate(one: () => Promise<unknown>): Promise<number> {
  const until = Date.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (Date.now() < until) {
        await one();
        done++;
      }
    }),
  );
  return done / seconds;
}

async function main(): Promise<void> {
  const { db, drop } = await freshSchema('bench_pgs', 10);
  try {
    const storage = Storage.from(db);
    const key = await seedKey(storage, { balance: 1e15 });
    const ref = () => ({ ...key.ref, now: Date.now() });
    const createTask = (transaction: Storage['transaction']) => () =>
      transaction(async (tx) => {
        const id = await seedTask(tx, key, { id: uuidV7(), holdAmount: 10 });
        if (!(await tx.ledger.hold(ref(), id, 10))) throw new Error('refused');
      });
    const grouped = storage.transaction.bind(storage);
    const createBatched = async () => {
      const task = newTaskRow(key, 10, { params: '{"prompt":"p"}' });
      if (!(await storage.insertTaskWithHold(task))) throw new Error('refused');
    };
    // One database transaction per request, as before group commit.
    const alone: Storage['transaction'] = (work) =>
      db.kysely.transaction().execute((trx) => work(new Storage(trx, 'postgres', true)));
    const chat = (billing: Storage['chatBilling']) => async () => {
      const id = uuidV7();
      if (!(await billing.open({ id, modelId: 'gpt-4o-mini', ref: ref() }, 100))) throw new Error('refused');
      await billing.settle(ref(), id, 100, {
        status: 'completed',
        inputTokens: 10,
        outputTokens: 10,
        cost: 40,
        latencyMs: 1,
      });
    };
    // Inside a transaction object the repository does not batch: the statements run one by one.
    const unbatched = new Storage(db.kysely, 'postgres', true).chatBilling;
    const rows: string[] = [];
    for (let round = 1; round <= rounds; round++) {
      const results = {
        'POST /generate, batched statement (gengate)': await rate(createBatched),
        'POST /generate shape, group commit': await rate(createTask(grouped)),
        'POST /generate shape, one transaction each': await rate(createTask(alone)),
        'chat hold + settlement, batched statements': await rate(chat(storage.chatBilling)),
        'chat hold + settlement, one statement each': await rate(chat(unbatched)),
      };
      const internals = storage as unknown as {
        groupCommit: { stats: unknown };
        chatBilling: { pgOpens: { stats: unknown }; pgSettles: { stats: unknown } };
      };
      console.log(
        'group commit',
        internals.groupCommit.stats,
        'chat holds',
        internals.chatBilling.pgOpens.stats,
      );
      for (const [name, perSecond] of Object.entries(results))
        rows.push(`| ${round} | ${name} | ${Math.round(perSecond).toLocaleString('en-US')} |`);
      console.log(`round ${round}:`, results);
    }
    console.log(`\n${inFlight} in flight on one key, ${seconds} s per measurement\n`);
    console.log('| round | what | per second |\n|---|---|---|');
    console.log(rows.join('\n'));
  } finally {
    await drop();
  }
}

await main();
