// What this process last learned of each key's available balance: the balance its own latest chat
// hold on the key left. ChatService sends a request upstream while its hold is still on its way to
// the database only when this says the hold will all but surely fit (see `covers`); the answer still
// waits for the hold. A wrong guess costs an upstream call that is aborted, never money of the client.

/** A balance seen longer ago than this is not trusted: other processes spend from the key too. */
const TRUSTED_FOR_MS = 5_000;
/** The hold must fit this many times over: other processes' holds land meanwhile. */
const MARGIN = 2;
/** Bounded memory: past this many keys the map starts over. */
const MAX_KEYS = 10_000;

interface Seen {
  balance: number;
  at: number;
}

export class BalanceHints {
  private readonly seen = new Map<number, Seen>();

  /**
   * Whether a hold of `amount` on the key will all but surely fit. When it will, `amount` is taken
   * off the remembered balance at once, so the requests of this process that arrive before the hold's
   * answer do not all count on the same money.
   */
  covers(keyId: number, amount: number, now: number): boolean {
    const seen = this.seen.get(keyId);
    if (!seen || now - seen.at > TRUSTED_FOR_MS || seen.balance < MARGIN * amount) return false;
    seen.balance -= amount;
    return true;
  }

  /** The available balance a hold just left on the key. */
  record(keyId: number, balance: number, now: number): void {
    if (this.seen.size >= MAX_KEYS && !this.seen.has(keyId)) this.seen.clear();
    this.seen.set(keyId, { balance, at: now });
  }

  /** A hold on the key was refused: guess nothing until one succeeds again. */
  forget(keyId: number): void {
    this.seen.delete(keyId);
  }
}
