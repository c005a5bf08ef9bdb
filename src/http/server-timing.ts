// The Server-Timing header of a proxied answer: how much of the time to the answer was the gateway's
// own (checks, hold, forwarding, and relaying the first bytes) and how much the upstream's (from
// the request sent to its answer's headers), in ms with microseconds. Clients and load tests read
// what the gateway adds without a baseline of their own; browsers show it in their network panels.
import type { FastifyReply } from 'fastify';

/** The header's value, or undefined when the upstream's share is not known. */
export function serverTiming(totalMs: number, upstreamMs: number | undefined): string | undefined {
  if (upstreamMs === undefined || !Number.isFinite(totalMs) || !Number.isFinite(upstreamMs)) return undefined;
  const gatewayMs = Math.max(0, totalMs - upstreamMs);
  return `gateway;dur=${gatewayMs.toFixed(3)}, upstream;dur=${upstreamMs.toFixed(3)}`;
}

/** The `gateway` and `upstream` durations of a Server-Timing value; undefined for each one absent. */
export function readServerTiming(value: string | undefined): { gatewayMs?: number; upstreamMs?: number } {
  const read = (name: string) => {
    const match = new RegExp(`(?:^|,)\\s*${name};dur=([0-9.]+)`).exec(value ?? '');
    return match ? Number(match[1]) : undefined;
  };
  return { gatewayMs: read('gateway'), upstreamMs: read('upstream') };
}

/** A call that knows its upstream's time (ChatCall, a Messages call), once the answer came. */
export interface TimedCall {
  readonly upstreamMs?: number;
}

/** Sets the header from the reply's time so far and the call's upstream share, when that is known. */
export function stampServerTiming(reply: FastifyReply, call: TimedCall): void {
  const timing = serverTiming(reply.elapsedTime, call.upstreamMs);
  if (timing) reply.header('server-timing', timing);
}

/** `sink` stamping the header just before it commits the response (with the first bytes out). */
export function stampingSink<S extends { start(): void }>(reply: FastifyReply, sink: S, call: TimedCall): S {
  return {
    ...sink,
    start: () => {
      stampServerTiming(reply, call);
      sink.start();
    },
  };
}
