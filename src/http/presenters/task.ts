// Task row → the spec's Task object, plus model_name, cost and finished_at (additions only).
import { microToRub } from '../../domain/billing/money.js';
import { isFinal } from '../../domain/tasks/states.js';
import type { TaskRow } from '../../storage/repositories/tasks.js';

export function presentTask(task: TaskRow) {
  const final = isFinal(task.status);
  return {
    task_id: task.id,
    status: task.status,
    result:
      task.status === 'completed' && task.result
        ? (JSON.parse(task.result) as Record<string, unknown>)
        : null,
    error: task.status === 'failed' ? task.error : null,
    created_at: new Date(task.created_at).toISOString(),
    /** The catalog model the task runs on (the request's model_name). */
    model_name: task.model_id,
    /** Rubles captured for the task, once final (0 for a failed task: its hold is released). */
    cost: final ? microToRub(task.cost ?? 0) : null,
    finished_at: final ? new Date(task.finished_at ?? task.updated_at).toISOString() : null,
  };
}

export const taskSchema = {
  type: 'object',
  properties: {
    task_id: { type: 'string', format: 'uuid' },
    status: { type: 'string', enum: ['pending', 'processing', 'completed', 'failed'] },
    result: { type: ['object', 'null'], additionalProperties: true },
    error: { type: ['string', 'null'] },
    created_at: { type: 'string', format: 'date-time' },
    model_name: { type: 'string' },
    cost: { type: ['number', 'null'], description: 'Rubles charged, once final; null before' },
    finished_at: { type: ['string', 'null'], format: 'date-time' },
  },
  required: ['task_id', 'status', 'result', 'error', 'created_at', 'model_name', 'cost', 'finished_at'],
} as const;
