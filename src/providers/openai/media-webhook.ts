// OpenAI webhooks: project-level (set up in the OpenAI dashboard, not per request), delivered per the
// Standard Webhooks spec: `webhook-id`, `webhook-timestamp`, `webhook-signature` headers, HMAC-SHA256
// with the project's `whsec_…` secret, 5 minutes of timestamp tolerance. The body is
// {id, type, created_at, data: {id}}; for videos, type is video.completed or video.failed and
// data.id the video id. The runner only polls the job on a hook, so an unsigned one is a mere hint.
import { Webhook } from 'standardwebhooks';
import type { HookOutcome, IncomingHook } from '../task-provider.js';

function headerValue(hook: IncomingHook, name: string): string {
  const value = hook.headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

/** Checks the signature; false when a header is missing, the timestamp is stale, or no secret verifies. */
export function verifyOpenAiHook(hook: IncomingHook, secret: string): boolean {
  try {
    new Webhook(secret).verify(hook.rawBody, {
      'webhook-id': headerValue(hook, 'webhook-id'),
      'webhook-timestamp': headerValue(hook, 'webhook-timestamp'),
      'webhook-signature': headerValue(hook, 'webhook-signature'),
    });
    return true;
  } catch {
    return false;
  }
}

/** The video a delivery is about; undefined for other events (responses, batches, …) of the project. */
export function hookVideoId(rawBody: Buffer): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString('utf8'));
  } catch {
    return undefined;
  }
  const { type, data } = (body ?? {}) as { type?: unknown; data?: { id?: unknown } };
  if (typeof type !== 'string' || !type.startsWith('video.')) return undefined;
  return typeof data?.id === 'string' && data.id ? data.id : undefined;
}

export function receiveOpenAiHook(hook: IncomingHook, secret: string | undefined): HookOutcome {
  if (secret && !verifyOpenAiHook(hook, secret)) return { status: 'forged' };
  const jobId = hookVideoId(hook.rawBody);
  const taskId = hook.query.task;
  return { status: 'accepted', ...(jobId ? { jobId } : {}), ...(taskId ? { taskId } : {}) };
}
