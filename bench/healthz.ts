// How long a started gengate takes to serve: polls /healthz until it answers 200. Shared by the
// restart and first-start rows of the start scenario.
import type { ChildProcess } from 'node:child_process';

/**
 * Milliseconds from `started` (a performance.now() reading) to the first 200 from /healthz on
 * `port`; throws when `child` exits first or `giveUpMs` pass without an answer.
 */
export async function msUntilHealthy(
  child: ChildProcess,
  port: number,
  started: number,
  timing: { pollMs: number; giveUpMs: number },
): Promise<number> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode} before answering`);
    if (performance.now() - started > timing.giveUpMs)
      throw new Error(`no answer within ${timing.giveUpMs / 1000} s`);
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (answer) => answer.ok,
      () => false,
    );
    if (ok) return performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, timing.pollMs));
  }
}
