// What a client leaving does to the upstream request it started. The upstream generates, and bills
// the operator, whether or not anyone waits; so unless there is nothing to bill yet, it is read on
// for up to `drainMs`, and its own usage, if it arrives, settles the request exactly. Used by the
// chat calls and by the Messages pass-through.
import type { Cancellation } from '../../providers/cancellation.js';

export interface LeaveWatch {
  /** The client was found gone (a write failed): as if it had cancelled. */
  gone(): void;
  /** Ends the watch (a pending drain timer included). */
  release(): void;
}

/**
 * When `client` leaves: cancels `upstream` at once if `readOn()` says there is nothing to bill yet,
 * else after `drainMs`.
 */
export function drainOnLeave(
  client: Cancellation,
  upstream: Cancellation,
  drainMs: number,
  readOn: () => boolean,
): LeaveWatch {
  let drain: NodeJS.Timeout | undefined;
  const stop = () => upstream.cancel(client.reason);
  const gone = () => {
    if (upstream.aborted || drain) return;
    if (!readOn()) return stop();
    drain = setTimeout(stop, drainMs);
    drain.unref?.();
  };
  if (client.aborted) gone();
  else client.once('abort', gone);
  return {
    gone,
    release: () => {
      clearTimeout(drain);
      client.removeListener('abort', gone);
    },
  };
}
