// When a request went to an upstream and when its answer came (performance.now() readings), for the
// Server-Timing header's split between the gateway's time and the upstream's. One shape for the
// chat calls (early ones included) and the Messages pass-through.

export interface UpstreamTiming {
  sentAt: number;
  answeredAt?: number;
}

/**
 * Notes on `timing` when `answer` resolves; a rejection is left to whoever awaits `answer` (here it
 * is only swallowed, so an answer that is never awaited, an aborted early call, is not unhandled).
 */
export function noteAnswer(timing: UpstreamTiming, answer: Promise<unknown>): void {
  answer.then(
    () => {
      timing.answeredAt ??= performance.now();
    },
    () => undefined,
  );
}

/** The upstream's time from the request sent to its answer, in ms; undefined before it came. */
export function upstreamMsOf(timing: UpstreamTiming | undefined): number | undefined {
  return timing?.answeredAt === undefined ? undefined : timing.answeredAt - timing.sentAt;
}
