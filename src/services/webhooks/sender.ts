// One delivery attempt: sign, POST the JSON payload, classify the answer. Any 2xx succeeds; anything
// else (3xx included, since redirects are not followed), no answer within the timeout, a network
// error or a refused address is a failed attempt.
import type { Dispatcher } from 'undici';
import type { AttemptOutcome } from '../../domain/webhooks/schedule.js';
import { webhookHeaders } from '../../domain/webhooks/signing.js';
import { isEgressRefused } from './egress.js';

/** Enough of a body to let the connection be reused; anything longer is cut off with its connection. */
export const RESPONSE_BODY_CAP_BYTES = 16 * 1024;
const USER_AGENT = 'gengate-webhooks/0.1';

export interface WebhookMessage {
  id: string;
  url: string;
  payload: string;
  secrets: string[];
}

export async function sendWebhook(
  dispatcher: Dispatcher,
  message: WebhookMessage,
  timeoutMs: number,
  now: number,
): Promise<AttemptOutcome> {
  const signal = AbortSignal.timeout(timeoutMs);
  let statusCode: number;
  try {
    const url = new URL(message.url);
    const response = await dispatcher.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        ...webhookHeaders(message.id, message.payload, message.secrets, now),
      },
      body: message.payload,
      signal,
    });
    statusCode = response.statusCode;
    await discardBody(response.body);
  } catch (error) {
    if (signal.aborted) return { ok: false, statusCode: null, error: `no answer within ${timeoutMs} ms` };
    if (isEgressRefused(error)) return { ok: false, statusCode: null, error: (error as Error).message };
    return { ok: false, statusCode: null, error: `network error: ${describe(error)}` };
  }
  if (statusCode >= 200 && statusCode < 300) return { ok: true, statusCode };
  return { ok: false, statusCode, error: `HTTP ${statusCode}` };
}

/** Reads at most RESPONSE_BODY_CAP_BYTES and drops them; the content never matters. */
async function discardBody(body: Dispatcher.ResponseData['body']): Promise<void> {
  let read = 0;
  try {
    for await (const chunk of body) {
      read += (chunk as Buffer).length;
      if (read > RESPONSE_BODY_CAP_BYTES) break;
    }
  } catch {
    // The status already decided the outcome; a body that fails midway changes nothing.
  } finally {
    if (!body.destroyed) body.destroy();
  }
}

function describe(error: unknown): string {
  const e = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  return e?.cause?.code ?? e?.code ?? e?.cause?.message ?? e?.message ?? String(error);
}
