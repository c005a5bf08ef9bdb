// Task row → OpenAI's video object (DESIGN.md §4), so the official openai SDK reads it unchanged.
// The id is the task id: GET /tasks/{id} shows the same task in the native shape.
import { pixelSizeOf } from '../../domain/openai/mapping.js';
import { failureCode } from '../../domain/openai/task-failure.js';
import type { TaskStatus } from '../../domain/tasks/states.js';
import type { TaskRow } from '../../storage/repositories/tasks.js';

const STATUS: Record<TaskStatus, 'queued' | 'in_progress' | 'completed' | 'failed'> = {
  pending: 'queued',
  processing: 'in_progress',
  completed: 'completed',
  failed: 'failed',
};

const unixSeconds = (ms: number) => Math.floor(ms / 1000);

function parseObject(text: string | null): Record<string, unknown> {
  if (!text) return {};
  const value: unknown = JSON.parse(text);
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
}

/** Providers mostly default to landscape; a model without an aspect_ratio parameter gets 16:9. */
const DEFAULT_ASPECT_RATIO = '16:9';

const positiveInteger = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value > 0;

/**
 * OpenAI's `size` ("WxH"), never null: the stored video's own width and height once the result
 * records them, else the size the parameters ask for (aspect ratio, resolution), as requested.
 */
function sizeOf(params: Record<string, unknown>, result: Record<string, unknown>): string {
  if (positiveInteger(result.width) && positiveInteger(result.height))
    return `${result.width}x${result.height}`;
  return (
    pixelSizeOf(params.aspect_ratio, params.resolution) ??
    (pixelSizeOf(DEFAULT_ASPECT_RATIO, params.resolution) as string)
  );
}

export function presentOpenAiVideo(task: TaskRow) {
  const params = parseObject(task.params);
  const result = task.status === 'completed' ? parseObject(task.result) : {};
  const duration = result.duration ?? params.duration;
  const final = task.status === 'completed' || task.status === 'failed';
  return {
    id: task.id,
    object: 'video' as const,
    model: task.model_id,
    status: STATUS[task.status],
    // Providers report no intermediate progress: 0 until the video is done.
    progress: task.status === 'completed' ? 100 : 0,
    created_at: unixSeconds(task.created_at),
    completed_at: final && task.finished_at !== null ? unixSeconds(task.finished_at) : null,
    expires_at: null,
    prompt: typeof params.prompt === 'string' ? params.prompt : null,
    seconds: typeof duration === 'number' ? String(duration) : null,
    size: sizeOf(params, result),
    remixed_from_video_id: null,
    error:
      task.status === 'failed'
        ? { code: failureCode(task.error), message: task.error ?? 'The video failed' }
        : null,
  };
}

export const openAiVideoSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    object: { type: 'string', enum: ['video'] },
    model: { type: 'string' },
    status: { type: 'string', enum: ['queued', 'in_progress', 'completed', 'failed'] },
    progress: { type: 'integer' },
    created_at: { type: 'integer' },
    completed_at: { type: ['integer', 'null'] },
    expires_at: { type: ['integer', 'null'] },
    prompt: { type: ['string', 'null'] },
    seconds: { type: ['string', 'null'] },
    size: { type: 'string' },
    remixed_from_video_id: { type: ['string', 'null'] },
    error: {
      anyOf: [
        {
          type: 'object',
          properties: { code: { type: 'string' }, message: { type: 'string' } },
          required: ['code', 'message'],
        },
        { type: 'null' },
      ],
    },
  },
  required: [
    'id',
    'object',
    'model',
    'status',
    'progress',
    'created_at',
    'completed_at',
    'seconds',
    'size',
    'error',
  ],
} as const;
