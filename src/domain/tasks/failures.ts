// The client-facing text of an upstream failure: the spec's fixed messages by kind. Only a parameter
// rejection carries its own message; the upstream's raw answer never reaches the client.
import { TASK_FAILURE } from './states.js';

export type FailureKind = 'rejected' | 'billing' | 'overload' | 'params' | 'timeout' | 'auth' | 'upstream';

export const FAILURE_KINDS: readonly FailureKind[] = [
  'rejected',
  'billing',
  'overload',
  'params',
  'timeout',
  'auth',
  'upstream',
];

const DEFAULT_PARAMS_MESSAGE = 'Parameter validation failed: the provider rejected the parameters';
const MAX_PARAMS_MESSAGE = 300;

export function failureMessage(failure: { kind: FailureKind; message?: string }): string {
  switch (failure.kind) {
    case 'rejected':
      return TASK_FAILURE.rejected;
    case 'billing':
      return TASK_FAILURE.billing;
    case 'overload':
      return TASK_FAILURE.overload;
    case 'timeout':
      return TASK_FAILURE.timeout;
    case 'params':
      return failure.message?.trim().slice(0, MAX_PARAMS_MESSAGE) || DEFAULT_PARAMS_MESSAGE;
    case 'auth':
    case 'upstream':
      return TASK_FAILURE.upstream;
  }
}

/**
 * Kinds that, at submit, let the task try the model's next route: nothing was started upstream and
 * the refusal is about the account (capacity, its credentials, its funds), not the client's request.
 */
export function movesToNextRoute(kind: FailureKind): boolean {
  return kind === 'overload' || kind === 'upstream' || kind === 'auth' || kind === 'billing';
}
