// Replays a key's ledger entries in id order and checks that each one carries the balance and held
// amount right after its own movement (batched writes must keep the chain of a one-by-one ledger).
import type { Storage } from '../storage/storage.js';

const MOVES: Record<string, (amount: number) => { balance: number; held: number }> = {
  topup: (a) => ({ balance: a, held: 0 }),
  adjust: (a) => ({ balance: a, held: 0 }),
  hold: (a) => ({ balance: -a, held: a }),
  capture: (a) => ({ balance: 0, held: -a }),
  release: (a) => ({ balance: a, held: -a }),
};

/** The entries whose balances do not follow from the ones before them (empty: the chain holds). */
export async function brokenLedgerChain(storage: Storage, keyId: number): Promise<string[]> {
  const broken: string[] = [];
  let balance = 0;
  let held = 0;
  for (const entry of await storage.ledger.entriesForKey(keyId, 100_000)) {
    const move = MOVES[entry.kind]?.(entry.amount);
    if (!move) {
      broken.push(`entry ${entry.id}: unexpected kind ${entry.kind}`);
      continue;
    }
    balance += move.balance;
    held += move.held;
    if (entry.balance_after !== balance || entry.held_after !== held) {
      broken.push(
        `entry ${entry.id} (${entry.kind} ${entry.amount}): after ${entry.balance_after}/${entry.held_after}, expected ${balance}/${held}`,
      );
      balance = entry.balance_after;
      held = entry.held_after;
    }
  }
  return broken;
}
