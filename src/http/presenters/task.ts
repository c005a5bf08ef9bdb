// Task row → the spec's Task object.
import type { TaskRow } from '../../storage/repositories/tasks.js';

export function presentTask(task: TaskRow) {
  return {
    task_id: task.id,
    status: task.status,
    result:
      task.status === 'completed' && task.result
        ? (JSON.parse(task.result) as Record<string, unknown>)
        : null,
    error: task.status === 'failed' ? task.error : null,
    created_at: new Date(task.created_at).toISOString(),
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
  },
  required: ['task_id', 'status', 'result', 'error', 'created_at'],
} as const;
