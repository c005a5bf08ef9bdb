// A background worker as the process runs it: a loop with its own stop().

export interface RunningWorker {
  name: string;
  stop(): Promise<void>;
}

/** A loop that runs `tick` every `intervalMs` until stopped, never overlapping itself. */
export function startLoop(
  name: string,
  intervalMs: number,
  tick: () => Promise<unknown>,
  onError: (e: unknown) => void,
): RunningWorker {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = tick()
        .catch(onError)
        .then(() => schedule());
    }, intervalMs);
    timer.unref?.();
  };
  schedule();
  return {
    name,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
