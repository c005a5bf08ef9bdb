// The database time of chat requests alone: the hold transaction and the settlement transaction of
// ChatService/ChatCall, run through Storage on a fresh SQLite file (WAL, background checkpoints, as
// the server runs it), sequentially and with 32 requests in flight. It bounds what the chat path can
// reach: at 1 connection these two commits alone take longer than the added-latency budget.
// Run: `node bin/run-ts.mjs bench/chat-storage.ts [requests]`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { uuidV7 } from '../src/domain/ids.js';
import { openSqlite } from '../src/storage/db.js';
import { migrateToLatest } from '../src/storage/migrations.js';
import { Storage } from '../src/storage/storage.js';

const requests = Number(process.argv[2] ?? 20_000);
const dir = mkdtempSync(join(tmpdir(), 'gengate-chat-storage-'));
const db = openSqlite(join(dir, 'gengate.db'), { backgroundCheckpoint: true });
try {
  await migrateToLatest(db);
  const storage = Storage.from(db);
  const account = await storage.accounts.create({
    messagingId: 1,
    coefficientPpm: 1_000_000,
    webhookSecret: 'whsec_bench',
    now: Date.now(),
  });
  const key = await storage.keys.create({
    accountId: account.id,
    name: null,
    keyHash: 'bench',
    keyPrefix: 'sk_live_',
    keyLast4: 'bnch',
    allowedModels: null,
    allowedIpCidrs: null,
    rateLimitPerMin: null,
    now: Date.now(),
  });
  const ref = { keyId: key.id, accountId: account.id, now: Date.now() };
  await storage.ledger.topup(ref, 1e15, null);

  // The statements of ChatService.open (full hold first) and ChatCall.settle.
  const open = (id: string) =>
    storage.transaction(async (tx) => {
      await tx.usage.createPending({
        id,
        accountId: account.id,
        keyId: key.id,
        modelId: 'gpt-4o-mini',
        now: ref.now,
      });
      await tx.ledger.hold(ref, id, 1_000);
    });
  const settle = (id: string) =>
    storage.transaction(async (tx) => {
      await tx.usage.finish(id, {
        status: 'completed',
        inputTokens: 12,
        outputTokens: 11,
        cost: 10,
        latencyMs: 1,
      });
      await tx.ledger.settle(ref, id, 1_000, 10);
    });

  for (const inFlight of [1, 32]) {
    const ids = Array.from({ length: requests }, () => `chat_${uuidV7()}`);
    let next = 0;
    const started = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < ids.length) {
          const id = ids[next++];
          await open(id);
          await settle(id);
        }
      }),
    );
    const perRequest = Number(process.hrtime.bigint() - started) / requests / 1000;
    console.log(
      `${inFlight} in flight: ${perRequest.toFixed(1)} µs of database time per chat request (hold + settlement)`,
    );
  }
} finally {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
}
