// One request before a scenario's load: a route that does not exist yet turns the scenario into a
// SKIP with that reason (never a PASS), and an unexpected answer is reported instead of measured.
import { brief, call, type HttpAnswer, isMissingRoute } from '../http.js';
import type { HttpTarget } from '../load.js';

export type Preflight = { ok: true; answer: HttpAnswer } | { ok: false; skip?: string; invalid?: string };

export async function preflight(
  target: HttpTarget,
  expectStatus: number,
  body = target.body,
): Promise<Preflight> {
  const route = `${target.method} ${target.path.replace(/\/[0-9a-f-]{36}$/, '/{id}')}`;
  let answer: HttpAnswer;
  try {
    answer = await call(target.origin, target.method, target.path, { headers: target.headers, body });
  } catch (error) {
    return { ok: false, invalid: `${target.name}: ${route} failed: ${(error as Error).message}` };
  }
  if (isMissingRoute(answer))
    return { ok: false, skip: `${route} is not built yet in ${target.name} (404 "No route")` };
  if (answer.status !== expectStatus)
    return {
      ok: false,
      invalid: `${target.name}: ${route} answered ${brief(answer)}, expected ${expectStatus}`,
    };
  return { ok: true, answer };
}

export interface Reasons {
  skip?: string;
  invalid?: string;
}

/** The reason a preflight did not pass, for a figure (skip or invalid); empty when it passed. */
export function failure(result: Preflight): Reasons {
  return result.ok ? {} : { skip: result.skip, invalid: result.invalid };
}
