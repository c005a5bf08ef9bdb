// The task state machine of the spec: pending → processing → completed | failed, with the one
// non-final detour of "Concurrency limit exceeded" (processing → pending). Final states never change.

export type TaskStatus = 'pending' | 'processing' | 'completed' | 'failed';
export type FinalStatus = 'completed' | 'failed';

const TRANSITIONS: Record<TaskStatus, readonly TaskStatus[]> = {
  pending: ['processing'],
  // processing → processing is a worker taking over an expired lease; → pending is a re-queue.
  processing: ['processing', 'pending', 'completed', 'failed'],
  completed: [],
  failed: [],
};

export function isFinal(status: TaskStatus): status is FinalStatus {
  return status === 'completed' || status === 'failed';
}

export function canTransition(from: TaskStatus, to: TaskStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/** The exact messages of the spec's "Errors inside a failed task" table. */
export const TASK_FAILURE = {
  timeout: 'Timeout while waiting for provider response',
  rejected: 'Provider rejected prompt: contains restricted content',
  billing: 'Provider billing error',
  overload: 'Service temporarily unavailable (code E-294, high load)',
  /**
   * An upstream failure the spec has no text for (an unexpected answer, a refused credential on our
   * side, a result that expired before it was copied): the client learns only that it failed.
   */
  upstream: 'Provider error: the generation failed',
  /** Not final: the task is re-queued and `error` stays null. Kept for logs and adapters. */
  busy: 'Concurrency limit exceeded',
} as const;
