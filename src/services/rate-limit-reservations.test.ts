// Runs of counts reserved at once: exact below 2 × RUN_DIVISOR a minute, one reservation per run on
// a hot key, and never more than the limit across processes sharing the window.
import { describe, expect, it } from 'vitest';
import { MAX_RUN, type Reserve, ReservedCounts, RUN_DIVISOR } from './rate-limit-reservations.js';

/** One shared window, as Redis keeps it: a total per subject, reset every 60 s of the fake clock. */
function sharedWindow(clock: { now: number }) {
  const totals = new Map<string, { total: number; resetsAt: number }>();
  const calls: number[] = [];
  const reserve: Reserve = async (subject, length) => {
    calls.push(length);
    let window = totals.get(subject);
    if (!window || window.resetsAt <= clock.now) {
      window = { total: 0, resetsAt: clock.now + 60_000 };
      totals.set(subject, window);
    }
    window.total += length;
    return { total: window.total, msBeforeReset: window.resetsAt - clock.now };
  };
  return { reserve, calls, totals };
}

describe('ReservedCounts', () => {
  it('counts each request on its own below 2 × RUN_DIVISOR a minute', async () => {
    const clock = { now: 0 };
    const window = sharedWindow(clock);
    const counts = new ReservedCounts(window.reserve, () => clock.now);
    const positions = [];
    for (let i = 0; i < 5; i++) positions.push((await counts.count('k', 2 * RUN_DIVISOR - 1)).position);
    expect(positions).toEqual([1, 2, 3, 4, 5]);
    expect(window.calls).toEqual([1, 1, 1, 1, 1]);
  });

  it('reserves a run per round trip on a hot key, and runs shrink as the window fills', async () => {
    const clock = { now: 0 };
    const window = sharedWindow(clock);
    const counts = new ReservedCounts(window.reserve, () => clock.now);
    const positions = [];
    for (let i = 0; i < 1_000; i++) positions.push((await counts.count('k', 1_000)).position);
    expect(positions).toEqual(Array.from({ length: 1_000 }, (_, i) => i + 1));
    expect(window.calls[0]).toBe(Math.floor(1_000 / RUN_DIVISOR));
    expect(window.calls.length).toBeLessThan(200);
    expect(window.calls.at(-1)).toBe(1);
    expect(Math.max(...window.calls)).toBeLessThanOrEqual(MAX_RUN);
  });

  it('requests arriving together share one reservation', async () => {
    const clock = { now: 0 };
    const window = sharedWindow(clock);
    const counts = new ReservedCounts(window.reserve, () => clock.now);
    const taken = await Promise.all(Array.from({ length: 20 }, () => counts.count('k', 1_000_000)));
    expect(taken.map((t) => t.position).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    expect(window.calls).toEqual([MAX_RUN]);
  });

  it('a new window starts a new run', async () => {
    const clock = { now: 0 };
    const window = sharedWindow(clock);
    const counts = new ReservedCounts(window.reserve, () => clock.now);
    await counts.count('k', 1_000_000);
    clock.now = 61_000;
    expect(await counts.count('k', 1_000_000)).toEqual({ position: 1, msBeforeReset: 60_000 });
    expect(window.calls).toHaveLength(2);
  });

  it('never lets more than the limit through across processes sharing the window', async () => {
    const clock = { now: 0 };
    const window = sharedWindow(clock);
    const processes = [0, 1, 2].map(() => new ReservedCounts(window.reserve, () => clock.now));
    const limit = 5_000;
    let allowed = 0;
    for (let i = 0; i < 6_000; i++) {
      const { position } = await processes[(i * 7) % 3].count('k', limit);
      if (position <= limit) allowed++;
    }
    // Every process keeps sending, so every reserved count is used: exactly the limit.
    expect(allowed).toBe(limit);
  });
});
