// The database time of chat requests alone: the hold and the settlement of ChatService/ChatCall
// (ChatBillingRepository), run through Storage on a fresh SQLite file (WAL, background checkpoints,
// as the server runs it), one request at a time and with 32 in flight (group commit then shares each
// commit among the transactions in flight). Then the floor: the same statements with no group
// commit and no promise per request around them (chat-storage-floor.ts). It bounds what the chat
// path can reach: at 1 connection these two commits alone take longer than the added-latency budget.
// Run: `node bin/run-ts.mjs bench/chat-storage.ts [requests] [in flight, e.g. 1,16,32]`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { uuidV7 } from '../src/domain/ids.js';
import { openSqlite } from '../src/storage/db.js';
import type { KeyRef } from '../src/storage/ledger/ledger.js';
import { migrateToLatest } from '../src/storage/migrations.js';
import { Storage } from '../src/storage/storage.js';
import { measureFloor as floorOf } from './chat-storage-floor.js';

const requests = Number(process.argv[2] ?? 20_000);
const IN_FLIGHT = (process.argv[3] ?? '1,32').split(',').map(Number);
const dir = mkdtempSync(join(tmpdir(), 'gengate-chat-storage-'));

/** An account and a key with a balance no run can exhaust. */
async function fundedKey(storage: Storage): Promise<KeyRef> {
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
  return ref;
}

function report(path: string, inFlight: number, perRequest: number): void {
  console.log(
    `${path}, ${inFlight} in flight: ${perRequest.toFixed(1)} µs of database time per chat request (hold + settlement)`,
  );
}

async function measureStorage(file: string): Promise<void> {
  const db = openSqlite(file, { backgroundCheckpoint: true });
  try {
    await migrateToLatest(db);
    const storage = Storage.from(db);
    const ref = await fundedKey(storage);

    // What ChatService.open (the full hold) and ChatCall.settle write.
    const open = (id: string) => storage.chatBilling.open({ id, modelId: 'gpt-4o-mini', ref }, 1_000);
    const outcome = {
      status: 'completed' as const,
      inputTokens: 12,
      outputTokens: 11,
      cost: 10,
      latencyMs: 1,
    };
    const settle = (id: string) => storage.chatBilling.settle(ref, id, 1_000, outcome);

    for (const inFlight of IN_FLIGHT) {
      let begun = 0;
      const started = process.hrtime.bigint();
      await Promise.all(
        Array.from({ length: inFlight }, async () => {
          while (begun < requests) {
            begun++;
            // Made when the request starts, as ChatService does: ids made ahead of time would all
            // share a few milliseconds, and their random order (not the server's) would decide the
            // pages written (it tripled the commit's cost in an earlier version of this script).
            const id = `chat_${uuidV7()}`;
            await open(id);
            await settle(id);
          }
        }),
      );
      report('Storage', inFlight, Number(process.hrtime.bigint() - started) / requests / 1000);
    }
  } finally {
    await db.close();
  }
}

async function measureFloor(file: string): Promise<void> {
  const db = openSqlite(file, { backgroundCheckpoint: true });
  try {
    await migrateToLatest(db);
    const ref = await fundedKey(Storage.from(db));
    for (const inFlight of IN_FLIGHT)
      report('statements alone', inFlight, await floorOf(db.kysely, ref, requests, inFlight));
  } finally {
    await db.close();
  }
}

try {
  await measureStorage(join(dir, 'storage.db'));
  await measureFloor(join(dir, 'floor.db'));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
