// Task use cases for the HTTP layer: create, read (always scoped by the owner account) and wait
// until final (the synchronous image endpoint).
import { AppError } from '../../domain/errors.js';
import { isFinal } from '../../domain/tasks/states.js';
import type { TaskRow } from '../../storage/repositories/tasks.js';
import { type CreateTaskDeps, type CreateTaskInput, createTask } from './create-task.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Waiters re-read the row this often, for tasks finished by a worker in another process. */
const WAIT_POLL_MS = 250;

export class TasksService {
  constructor(private readonly deps: CreateTaskDeps) {}

  create(input: CreateTaskInput): Promise<TaskRow> {
    return createTask(this.deps, input);
  }

  /** Another account's task and an unknown id are the same 404: existence is never revealed. */
  async getForOwner(accountId: number, taskId: string): Promise<TaskRow> {
    const task = UUID.test(taskId)
      ? await this.deps.storage.tasks.getForOwner(accountId, taskId.toLowerCase())
      : undefined;
    if (!task) throw new AppError('task_not_found');
    return task;
  }

  /** The task once it is final, or as it is when `timeoutMs` runs out. */
  async waitForFinal(accountId: number, taskId: string, timeoutMs: number): Promise<TaskRow> {
    const deadline = this.deps.clock.now() + timeoutMs;
    for (;;) {
      const task = await this.getForOwner(accountId, taskId);
      const remaining = deadline - this.deps.clock.now();
      if (isFinal(task.status) || remaining <= 0) return task;
      await this.deps.events.waitForFinished(task.id, Math.min(remaining, WAIT_POLL_MS));
    }
  }
}
