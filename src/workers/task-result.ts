// A task's result: the provider's outputs copied into our object storage, then shaped as the task's
// public `result` with the captured cost. Copy failures are sorted by what the runner should do.
import { actualCost, type TaskPricing } from '../domain/tasks/pricing.js';
import { copyResult } from '../objects/copy-result.js';
import { DownloadError } from '../objects/download-error.js';
import { type ObjectStore, ObjectTooLargeError, type StoredObject } from '../objects/object-store.js';
import type { ProviderFailure, ProviderOutput, ProviderUsage } from '../providers/task-provider.js';
import type { FinalOutcome } from '../services/tasks/finalize.js';
import type { TaskRow } from '../storage/repositories/tasks.js';

export interface TaskResultSettings {
  maxResultBytes: number;
  publicUrl: string;
}

export type CopyVerdict =
  | { status: 'copied'; stored: Array<{ output: ProviderOutput; object: StoredObject }> }
  /** Final: the result cannot be delivered (too large, no outputs). */
  | { status: 'failed'; failure: ProviderFailure }
  /** The upstream refused the download as gone (403/404/410): its URL expired. */
  | { status: 'expired'; detail: string }
  /** A transient download error: poll and copy again later. */
  | { status: 'retry'; detail: string; error: unknown };

export async function copyOutputs(
  deps: { objects: ObjectStore },
  outputs: ProviderOutput[],
  maxBytes: number,
): Promise<CopyVerdict> {
  if (outputs.length === 0)
    return { status: 'failed', failure: { kind: 'upstream', detail: 'the provider returned no output' } };
  const stored = [];
  try {
    for (const output of outputs)
      stored.push({ output, object: await copyResult(deps.objects, output, maxBytes) });
  } catch (error) {
    if (error instanceof ObjectTooLargeError)
      // The size limit is ours, so the client gets its exact text.
      return { status: 'failed', failure: { kind: 'params', message: error.message, detail: error.message } };
    if (error instanceof DownloadError && error.expired) return { status: 'expired', detail: error.message };
    return { status: 'retry', detail: String(error), error };
  }
  return { status: 'copied', stored };
}

/** The task's public result and the cost captured for it (never above the hold). */
export function taskResult(
  task: TaskRow,
  stored: Array<{ output: ProviderOutput; object: StoredObject }>,
  usage: ProviderUsage | undefined,
  settings: TaskResultSettings,
): Extract<FinalOutcome, { status: 'completed' }> {
  const urls = stored.map(({ output, object }) => ({
    output,
    url: `${settings.publicUrl}/objects/${object.name}`,
  }));
  let result: Record<string, unknown>;
  if (task.kind === 'image') {
    const images = urls.map(({ output, url }) => ({
      url,
      width: output.width ?? null,
      height: output.height ?? null,
    }));
    result = { image_url: images[0].url, width: images[0].width, height: images[0].height };
    if (images.length > 1) result.images = images;
  } else {
    const params = JSON.parse(task.params) as Record<string, unknown>;
    const duration =
      urls[0].output.durationSec ?? (typeof params.duration === 'number' ? params.duration : null);
    result = { video_url: urls[0].url, duration: duration === null ? null : Math.round(duration) };
  }
  const pricing = JSON.parse(task.pricing ?? '{"unit":"shot"}') as TaskPricing;
  return { status: 'completed', result, cost: actualCost(pricing, task.hold_amount, usage) };
}
