import { describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey } from '../domain/keys/api-key.js';
import type { AuthKeyRow } from '../storage/repositories/keys.js';
import type { Storage } from '../storage/storage.js';
import { AuthService } from './auth.js';
import type { Clock } from './clock.js';

/** A key table of one row whose lookups can be held open, to interleave an eviction with a load. */
function fakeStorage(row: Partial<AuthKeyRow>) {
  const state = {
    row: row as AuthKeyRow | undefined,
    loads: 0,
    gate: undefined as Promise<void> | undefined,
  };
  const storage = {
    keys: {
      async activeByHash() {
        state.loads++;
        const seen = state.row && { ...state.row };
        await state.gate;
        return seen;
      },
    },
  } as unknown as Storage;
  return { storage, state };
}

const baseRow = {
  id: 7,
  account_id: 3,
  messaging_id: 42,
  coefficient_ppm: 1_000_000,
  allowed_models: null,
  allowed_ip_cidrs: null,
  rate_limit_per_min: null,
};

function manualClock(start = 1_000_000): Clock & { advance(ms: number): void } {
  let now = start;
  return { now: () => now, advance: (ms) => (now += ms) } as Clock & { advance(ms: number): void };
}

describe('AuthService', () => {
  const secret = generateApiKey();
  const authorization = `Bearer ${secret}`;

  it('serves a key from its cache within the TTL and reloads after it', async () => {
    const { storage, state } = fakeStorage(baseRow);
    const clock = manualClock();
    const auth = new AuthService(storage, clock, 500);
    expect(await auth.authenticate(authorization)).toMatchObject({
      keyId: 7,
      keyHash: hashApiKey(secret),
      rateLimitPerMin: null,
    });
    await auth.authenticate(authorization);
    expect(state.loads).toBe(1);
    clock.advance(500);
    await auth.authenticate(authorization);
    expect(state.loads).toBe(2);
  });

  it('an eviction makes the next request read the row again', async () => {
    const { storage, state } = fakeStorage(baseRow);
    const auth = new AuthService(storage, manualClock(), 60_000);
    await auth.authenticate(authorization);
    state.row = { ...baseRow, rate_limit_per_min: 5 } as AuthKeyRow;
    auth.invalidate(hashApiKey(secret));
    expect((await auth.authenticate(authorization)).rateLimitPerMin).toBe(5);
  });

  it('does not cache a row read before an eviction that arrived during the read', async () => {
    const { storage, state } = fakeStorage(baseRow);
    const auth = new AuthService(storage, manualClock(), 60_000);
    let open!: () => void;
    state.gate = new Promise((resolve) => (open = resolve));
    const racing = auth.authenticate(authorization); // reads the old row, then waits
    await Promise.resolve();
    state.row = { ...baseRow, allowed_models: '["gpt-4o"]' } as AuthKeyRow;
    auth.invalidate(hashApiKey(secret)); // the change lands while that read is in flight
    open();
    expect((await racing).allowedModels).toBeNull(); // that request saw the key as it was
    state.gate = undefined;
    expect((await auth.authenticate(authorization)).allowedModels).toEqual(['gpt-4o']);
  });

  it('requests that miss the cache together share one read; one arriving after an eviction reads again', async () => {
    const { storage, state } = fakeStorage(baseRow);
    const auth = new AuthService(storage, manualClock(), 60_000);
    let open!: () => void;
    state.gate = new Promise((resolve) => (open = resolve));
    const together = Array.from({ length: 32 }, () => auth.authenticate(authorization));
    await Promise.resolve();
    expect(state.loads).toBe(1);
    state.row = { ...baseRow, rate_limit_per_min: 9 } as AuthKeyRow;
    auth.invalidate(hashApiKey(secret));
    const after = auth.authenticate(authorization);
    await Promise.resolve();
    expect(state.loads).toBe(2);
    open();
    expect((await Promise.all(together)).every((key) => key.rateLimitPerMin === null)).toBe(true);
    expect((await after).rateLimitPerMin).toBe(9);
  });

  it('a deleted key answers 401 once evicted', async () => {
    const { storage, state } = fakeStorage(baseRow);
    const auth = new AuthService(storage, manualClock(), 60_000);
    await auth.authenticate(authorization);
    state.row = undefined;
    auth.invalidateAll();
    await expect(auth.authenticate(authorization)).rejects.toMatchObject({
      code: 'invalid_api_key',
      status: 401,
    });
  });

  it('refuses malformed headers without a lookup', async () => {
    const { storage, state } = fakeStorage(baseRow);
    const auth = new AuthService(storage, manualClock());
    for (const header of [undefined, '', 'Basic abc', 'Bearer', 'Bearer short', `Bearer ${secret}!`]) {
      await expect(auth.authenticate(header)).rejects.toMatchObject({ code: 'invalid_api_key' });
    }
    expect(state.loads).toBe(0);
  });
});
