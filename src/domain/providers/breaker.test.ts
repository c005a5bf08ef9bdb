import { describe, expect, it } from 'vitest';
import {
  admission,
  afterOutcome,
  afterRecheck,
  type BreakerSettings,
  claimProbe,
  freshHealth,
  recheckDue,
  verdictOf,
} from './breaker.js';

const S: BreakerSettings = {
  windowMs: 1_000,
  minRequests: 4,
  failurePercent: 50,
  cooldownMs: 100,
  recheckMs: 200,
};

describe('provider account breaker', () => {
  it('reads submit outcomes as success, failure, down or neutral', () => {
    expect(verdictOf({ status: 'submitted' })).toBe('success');
    expect(verdictOf({ status: 'succeeded' })).toBe('success');
    expect(verdictOf({ status: 'busy' })).toBe('neutral');
    expect(verdictOf({ status: 'not_sent' })).toBe('failure');
    expect(verdictOf({ status: 'uncertain' })).toBe('failure');
    expect(verdictOf({ status: 'failed', failure: { kind: 'overload' } })).toBe('failure');
    expect(verdictOf({ status: 'failed', failure: { kind: 'upstream' } })).toBe('failure');
    expect(verdictOf({ status: 'failed', failure: { kind: 'auth' } })).toBe('down');
    expect(verdictOf({ status: 'failed', failure: { kind: 'billing' } })).toBe('down');
    // The client's request was judged: the account works.
    expect(verdictOf({ status: 'failed', failure: { kind: 'params' } })).toBe('success');
    expect(verdictOf({ status: 'failed', failure: { kind: 'rejected' } })).toBe('success');
  });

  it('opens when the window holds enough outcomes and the failure share reaches the threshold', () => {
    let h = freshHealth(0);
    h = afterOutcome(h, 'success', null, 10, S);
    h = afterOutcome(h, 'failure', 'HTTP 503', 20, S);
    h = afterOutcome(h, 'success', null, 30, S);
    expect(h.state).toBe('up');
    h = afterOutcome(h, 'failure', 'HTTP 502', 40, S);
    expect(h).toMatchObject({ state: 'cooling', openUntil: 140, lastError: 'HTTP 502' });
  });

  it('a new window forgets old failures', () => {
    let h = freshHealth(0);
    for (let i = 0; i < 3; i++) h = afterOutcome(h, 'failure', 'x', 10, S);
    h = afterOutcome(h, 'failure', 'x', 1_500, S);
    expect(h).toMatchObject({ state: 'up', windowTotal: 1, windowFailures: 1, windowStart: 1_500 });
  });

  it('cooling: skipped until the cool-down ends, then one probe whose outcome decides', () => {
    let h = freshHealth(0);
    for (let i = 0; i < 4; i++) h = afterOutcome(h, 'failure', 'x', 10, S);
    expect(admission(h, 50, S)).toBe('skip');
    expect(admission(h, 110, S)).toBe('probe');
    h = claimProbe(h, 'task-1', 110);
    expect(admission(h, 120, S)).toBe('skip');
    // Another task's outcome does not decide.
    expect(afterOutcome(h, 'success', null, 130, S, 'task-2')).toBe(h);
    const failedProbe = afterOutcome(h, 'failure', 'still 503', 130, S, 'task-1');
    expect(failedProbe).toMatchObject({ state: 'cooling', openUntil: 230, probeTask: null });
    const closed = afterOutcome(h, 'success', null, 130, S, 'task-1');
    expect(closed).toMatchObject({ state: 'up', windowTotal: 0, windowFailures: 0 });
    // A probe that never reports back frees its place after another cool-down.
    expect(admission(h, 210, S)).toBe('probe');
  });

  it('auth or billing marks the account down until a re-check accepts it', () => {
    let h = afterOutcome(freshHealth(0), 'down', 'HTTP 401', 10, S);
    expect(h).toMatchObject({ state: 'down', checkedAt: 10, lastError: 'HTTP 401' });
    expect(admission(h, 10_000, S)).toBe('skip');
    expect(recheckDue(h, 100, S)).toBe(false);
    expect(recheckDue(h, 210, S)).toBe(true);
    h = afterRecheck(h, { reachable: true, authOk: false, detail: 'HTTP 401 again' }, 210);
    expect(h).toMatchObject({ state: 'down', checkedAt: 210, lastError: 'HTTP 401 again' });
    h = afterRecheck(h, { reachable: true, authOk: true }, 410);
    expect(h).toMatchObject({ state: 'up', checkedAt: 410 });
  });

  it('a down account tried as the last resort comes back up when it takes a job, not when it fails', () => {
    const down = afterOutcome(freshHealth(0), 'down', 'HTTP 402', 10, S);
    expect(afterOutcome(down, 'failure', 'HTTP 503', 20, S)).toBe(down);
    expect(afterOutcome(down, 'success', null, 30, S)).toMatchObject({ state: 'up', checkedAt: 30 });
  });
});
