// Replicate's answers → our failure kinds. Errors are problem-details bodies
// ({title, detail, status, invalid_fields?}); the kind is read from the body first (a credit
// problem is billing whatever the status), then from the status.
import { describeAnswer, retryAfterMs, type UpstreamResponse } from '../http/upstream-http.js';
import type { ProviderFailure, ProviderTask, SubmitOutcome } from '../task-provider.js';
import { ourParamName } from './request.js';

interface InvalidField {
  type?: string;
  field?: string;
  description?: string;
}

interface Problem {
  title?: string;
  detail?: string;
  invalid_fields?: InvalidField[];
}

/** Safety-filter wording of failed predictions across the models Replicate hosts. */
const SAFETY = /nsfw|safety|sensitive|content[ _-]?polic|moderation|flagged|inappropriate/i;
/** "Insufficient credit" (402), and spend limits an account owner sets. */
const BILLING = /insufficient credit|billing|payment required|spend(ing)? limit/i;
/** "Request was throttled. Expected available in 7 seconds." */
const THROTTLE_SECONDS = /available in (\d+(?:\.\d+)?) second/i;

function problemOf(response: UpstreamResponse): Problem {
  const json = response.json;
  return typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Problem) : {};
}

function problemText(problem: Problem, response: UpstreamResponse): string {
  return problem.title || problem.detail ? `${problem.title ?? ''} ${problem.detail ?? ''}` : response.text;
}

/**
 * A short, client-safe parameter message from a 422's invalid input fields, named with OUR param
 * names (the model's own names and descriptions stay in the logs). Undefined when no input field is
 * named: the request itself was wrong (an unknown version, a bad body), which the client cannot fix.
 */
function paramsMessage(
  problem: Problem,
  task: Pick<ProviderTask, 'upstreamModel' | 'params'>,
): string | undefined {
  for (const invalid of problem.invalid_fields ?? []) {
    const field = invalid.field ?? '';
    if (invalid.type === 'required' && field === 'input') {
      const missing = /^(\S+) is required/.exec(invalid.description ?? '')?.[1];
      if (missing) return `${ourParamName(task, missing)} is required`;
    }
    if (field.startsWith('input.')) {
      const name = field.slice('input.'.length).split('.')[0];
      return `invalid ${ourParamName(task, name)}`;
    }
  }
  return undefined;
}

/** What a refused create call means: busy (try later) or a failure kind. */
export function refusedCreate(
  response: UpstreamResponse,
  task: Pick<ProviderTask, 'upstreamModel' | 'params'>,
  now: number,
): Extract<SubmitOutcome, { status: 'busy' | 'failed' }> {
  const problem = problemOf(response);
  const text = problemText(problem, response);
  const detail = describeAnswer(response);
  const failed = (failure: ProviderFailure) => ({ status: 'failed' as const, failure });
  if (response.status === 402 || BILLING.test(text)) return failed({ kind: 'billing', detail });
  if (response.status === 401 || response.status === 403) return failed({ kind: 'auth', detail });
  if (response.status === 429) {
    const hinted = THROTTLE_SECONDS.exec(text);
    return {
      status: 'busy',
      retryAfterMs: retryAfterMs(response, now) ?? (hinted ? Number(hinted[1]) * 1000 : undefined),
    };
  }
  if (SAFETY.test(text)) return failed({ kind: 'rejected', detail });
  if (response.status === 422 || response.status === 400) {
    const message = paramsMessage(problem, task);
    return failed(message ? { kind: 'params', message, detail } : { kind: 'upstream', detail });
  }
  if (response.status >= 500) return failed({ kind: 'overload', detail });
  return failed({ kind: 'upstream', detail });
}

/** A prediction that ended `failed`: its error text says whether a safety filter stopped it. */
export function failedPrediction(error: unknown, status: string): ProviderFailure {
  const text = typeof error === 'string' ? error : JSON.stringify(error ?? null);
  const detail = `prediction ${status}: ${text.slice(0, 2000)}`;
  if (SAFETY.test(text)) return { kind: 'rejected', detail };
  if (BILLING.test(text)) return { kind: 'billing', detail };
  return { kind: 'upstream', detail };
}
