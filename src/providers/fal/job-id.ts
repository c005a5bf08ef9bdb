// The job id we store for a fal request. fal's docs say to use the status/response/cancel URLs its
// submit returns; they are always `{base}/{owner}/{app}/requests/{id}[/status|/cancel]` today. When
// they are, the job id is the bare request_id (so a webhook, which carries only request_id, names
// the same job id), and the URLs are rebuilt from the provider's base URL and the task's endpoint.
// When fal returns other URLs on the same origin, they are kept in the id as compact JSON.
import { appOf } from './request.js';

export interface FalJob {
  id: string;
  statusUrl: string;
  responseUrl: string;
  cancelUrl: string;
}

/** fal's request ids are UUIDs; anything else in a webhook is not one of ours. */
export const REQUEST_ID = /^[A-Za-z0-9_-]{1,128}$/;

export function standardUrls(baseUrl: string, path: string, id: string): FalJob {
  const root = `${baseUrl}/${appOf(path)}/requests/${encodeURIComponent(id)}`;
  return { id, statusUrl: `${root}/status`, responseUrl: root, cancelUrl: `${root}/cancel` };
}

/** Our key goes with every queue call: only to the configured origin, never to another host. */
function sameOrigin(url: unknown, baseUrl: string): url is string {
  try {
    return typeof url === 'string' && new URL(url).origin === new URL(baseUrl).origin;
  } catch {
    return false;
  }
}

/** The job id for a submit's answer (request_id plus the URLs fal returned, when usable). */
export function jobIdFor(
  answer: { request_id: string; status_url?: unknown; response_url?: unknown; cancel_url?: unknown },
  baseUrl: string,
  path: string,
): string {
  const standard = standardUrls(baseUrl, path, answer.request_id);
  const returned = {
    statusUrl: sameOrigin(answer.status_url, baseUrl) ? answer.status_url : standard.statusUrl,
    responseUrl: sameOrigin(answer.response_url, baseUrl) ? answer.response_url : standard.responseUrl,
    cancelUrl: sameOrigin(answer.cancel_url, baseUrl) ? answer.cancel_url : standard.cancelUrl,
  };
  if (
    returned.statusUrl === standard.statusUrl &&
    returned.responseUrl === standard.responseUrl &&
    returned.cancelUrl === standard.cancelUrl
  )
    return answer.request_id;
  return JSON.stringify({
    id: answer.request_id,
    s: returned.statusUrl,
    r: returned.responseUrl,
    c: returned.cancelUrl,
  });
}

/** The queue URLs of a stored job id; undefined when the id is not one this adapter made. */
export function parseJobId(jobId: string, baseUrl: string, path: string): FalJob | undefined {
  if (REQUEST_ID.test(jobId)) return standardUrls(baseUrl, path, jobId);
  try {
    const { id, s, r, c } = JSON.parse(jobId) as Record<string, unknown>;
    if (
      typeof id !== 'string' ||
      !sameOrigin(s, baseUrl) ||
      !sameOrigin(r, baseUrl) ||
      !sameOrigin(c, baseUrl)
    )
      return undefined;
    return { id, statusUrl: s, responseUrl: r, cancelUrl: c };
  } catch {
    return undefined;
  }
}
