// A failed task's `error` text as an error of the one catalog, for the OpenAI surface: the status of
// POST /v1/images/generations when its task failed, and `error.code` of a failed video object.
// The client's fault (a refused prompt, parameters the provider rejected) is a 4xx; the provider's
// (billing, overload, timeout, anything unknown) is a 5xx. The hold was released in every case.
import { AppError, type ErrorCode } from '../errors.js';
import { TASK_FAILURE } from '../tasks/states.js';

/** The parameter messages of the spec: "unexpected parameter …", "invalid aspect_ratio …", "… must be …". */
const PARAMETER_MESSAGE = /parameter|^invalid |\bmust be\b/i;

export function failureCode(message: string | null): ErrorCode {
  switch (message) {
    case TASK_FAILURE.rejected:
      return 'content_policy_violation';
    case TASK_FAILURE.overload:
      return 'upstream_overloaded';
    case TASK_FAILURE.timeout:
      return 'provider_timeout';
    case TASK_FAILURE.billing:
      return 'upstream_error';
  }
  return message !== null && PARAMETER_MESSAGE.test(message) ? 'upstream_rejected_request' : 'upstream_error';
}

/** The error answered for a failed task: its message, the catalog status, and the task id to look it up. */
export function taskFailureError(taskId: string, message: string | null): AppError {
  const code = failureCode(message);
  const retryAfter: Record<string, string> = code === 'upstream_overloaded' ? { 'Retry-After': '10' } : {};
  return new AppError(code, message ?? undefined, null, { headers: retryAfter, body: { task_id: taskId } });
}
