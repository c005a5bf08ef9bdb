import { describe, expect, it } from 'vitest';
import { Cancellation } from './cancellation.js';

describe('Cancellation', () => {
  it("emits 'abort' once, with its reason, and its AbortSignal follows whenever it was asked for", () => {
    const cancellation = new Cancellation();
    const early = cancellation.signal;
    let emitted = 0;
    cancellation.on('abort', () => emitted++);
    expect(cancellation.aborted).toBe(false);
    cancellation.cancel();
    cancellation.cancel(new Error('a second reason is ignored'));
    expect(emitted).toBe(1);
    expect(cancellation.aborted).toBe(true);
    expect((cancellation.reason as Error).name).toBe('AbortError');
    expect(early.aborted).toBe(true);
    expect(cancellation.signal.reason).toBe(cancellation.reason);
  });

  it('hands an AbortSignal made after the cancellation over already aborted', () => {
    const cancellation = new Cancellation();
    const reason = new Error('client gone');
    cancellation.cancel(reason);
    expect(cancellation.signal.aborted).toBe(true);
    expect(cancellation.signal.reason).toBe(reason);
  });
});
