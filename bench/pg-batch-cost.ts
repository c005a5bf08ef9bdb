// What one batched chat statement costs PostgreSQL, by batch size: the hold (with its pending usage
// row) and the settlement (with the usage row's outcome) of N requests of one key, sent one
// statement at a time on the relaxed pool, as gengate sends them. The time per statement at N = 1 is
// the statement's fixed cost; the slope between sizes is the cost per request.
//   node bin/run-ts.mjs bench/pg-batch-cost.ts [statements per size, 300] [sizes, 1,8,16,32] [every]
// With `every`, also a row per `every` statements of each size: a cost that grows as the tables do
// (a kept plan gone bad) shows there. The last row is a lone request's: the single-request hold and
// settlement that Storage sends when nothing else is queued (the 1-connection chat path).
import { uuidV7 } from '../src/domain/ids.js';
import { pgOpenMany, pgSettleMany } from '../src/storage/pg-chat-batch.js';
import { Storage } from '../src/storage/storage.js';
import { seedKey } from '../src/testing/storage-fixtures.js';
import { freshSchema } from './pg-schema.js';

const rounds = Number(process.argv[2] ?? 300);
const sizes = (process.argv[3] ?? '1,8,16,32').split(',').map(Number);
const every = Number(process.argv[4] ?? 0);

const { db, drop } = await freshSchema('bench_pgbc', 2);
try {
  const key = await seedKey(Storage.from(db), { balance: 1e15 });
  const relaxed = db.relaxed ?? db.kysely;
  console.log(
    '| requests per statement | hold, ms per statement | per request | settlement, ms per statement | per request |',
  );
  console.log('|---|---|---|---|---|');
  for (const size of sizes) {
    let holdMs = 0;
    let settleMs = 0;
    let reported = { hold: 0, settle: 0 };
    for (let round = 0; round < rounds; round++) {
      const now = Date.now();
      const items = Array.from({ length: size }, () => ({
        id: `chat_${uuidV7()}`,
        keyId: key.keyId,
        accountId: key.ref.accountId,
        modelId: 'gpt-4o-mini',
        amount: 100,
        now,
        processId: null,
      }));
      let started = process.hrtime.bigint();
      if ((await pgOpenMany(relaxed, items)).some((held) => held === undefined))
        throw new Error('a hold was declined');
      holdMs += Number(process.hrtime.bigint() - started) / 1e6;
      started = process.hrtime.bigint();
      const settlements = items.map((item) => ({
        id: item.id,
        keyId: item.keyId,
        accountId: item.accountId,
        holdAmount: 100,
        cost: 40,
        status: 'completed' as const,
        inputTokens: 10,
        outputTokens: 10,
        latencyMs: 1,
        now,
      }));
      if ((await pgSettleMany(relaxed, settlements)).some((settled) => !settled))
        throw new Error('a settlement was declined');
      settleMs += Number(process.hrtime.bigint() - started) / 1e6;
      if (every > 0 && (round + 1) % every === 0) {
        const [hold, settle] = [(holdMs - reported.hold) / every, (settleMs - reported.settle) / every];
        console.log(
          `| ${size} (statements ${round + 2 - every}–${round + 1}) | ${hold.toFixed(3)} | ${(hold / size).toFixed(3)} | ${settle.toFixed(3)} | ${(settle / size).toFixed(3)} |`,
        );
        reported = { hold: holdMs, settle: settleMs };
      }
    }
    const hold = holdMs / rounds;
    const settle = settleMs / rounds;
    console.log(
      `| ${size} | ${hold.toFixed(3)} | ${(hold / size).toFixed(3)} | ${settle.toFixed(3)} | ${(settle / size).toFixed(3)} |`,
    );
  }
  const storage = Storage.from(db);
  let [holdMs, settleMs] = [0, 0];
  for (let round = 0; round < rounds; round++) {
    const id = `chat_${uuidV7()}`;
    const ref = { ...key.ref, now: Date.now() };
    let started = process.hrtime.bigint();
    if (!(await storage.chatBilling.open({ id, modelId: 'gpt-4o-mini', ref }, 100)))
      throw new Error('a hold was declined');
    holdMs += Number(process.hrtime.bigint() - started) / 1e6;
    started = process.hrtime.bigint();
    const outcome = {
      status: 'completed',
      inputTokens: 10,
      outputTokens: 10,
      cost: 40,
      latencyMs: 1,
    } as const;
    if (!(await storage.chatBilling.settle(ref, id, 100, outcome)))
      throw new Error('a settlement was declined');
    settleMs += Number(process.hrtime.bigint() - started) / 1e6;
  }
  const [hold, settle] = [holdMs / rounds, settleMs / rounds];
  console.log(
    `| 1, single statement | ${hold.toFixed(3)} | ${hold.toFixed(3)} | ${settle.toFixed(3)} | ${settle.toFixed(3)} |`,
  );
} finally {
  await drop();
}
