// GET /tasks: one page of the caller's account's tasks, newest first. The cursor is a task id (the
// last one of the previous page, which the answer also gives as next_cursor); a task the account
// does not own is refused like an unknown one, so another account's ids reveal nothing.
import { AppError } from '../../domain/errors.js';
import type { TaskStatus } from '../../domain/tasks/states.js';
import type { TaskRow } from '../../storage/repositories/tasks.js';
import type { Storage } from '../../storage/storage.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const STATUSES: readonly TaskStatus[] = ['pending', 'processing', 'completed', 'failed'];
export const TASK_PAGE_DEFAULT = 20;
export const TASK_PAGE_MAX = 100;

export interface TaskPageQuery {
  limit?: string;
  after?: string;
  status?: string;
  model?: string;
}

export interface TaskPage {
  tasks: TaskRow[];
  hasMore: boolean;
  /** The id to pass as `after` for the next page; null on the last page. */
  nextCursor: string | null;
}

export async function listTasks(
  storage: Storage,
  accountId: number,
  query: TaskPageQuery,
): Promise<TaskPage> {
  const rawLimit = query.limit ?? String(TASK_PAGE_DEFAULT);
  const limit = Number(rawLimit);
  if (!/^\d{1,3}$/.test(rawLimit) || limit < 1 || limit > TASK_PAGE_MAX)
    throw new AppError('invalid_parameter', `limit must be an integer from 1 to ${TASK_PAGE_MAX}`, 'limit');
  let status: TaskStatus | undefined;
  if (query.status !== undefined) {
    if (!STATUSES.includes(query.status as TaskStatus))
      throw new AppError('invalid_parameter', `status must be one of ${STATUSES.join(', ')}`, 'status');
    status = query.status as TaskStatus;
  }
  if (query.model !== undefined && query.model.length === 0)
    throw new AppError('invalid_parameter', 'model must not be empty', 'model');
  let after: { createdAt: number; id: string } | undefined;
  if (query.after !== undefined) {
    const cursor = UUID.test(query.after)
      ? await storage.tasks.getForOwner(accountId, query.after.toLowerCase())
      : undefined;
    if (!cursor)
      throw new AppError('invalid_parameter', 'after must be the id of one of your tasks', 'after');
    after = { createdAt: cursor.created_at, id: cursor.id };
  }
  // One more than asked: whether it exists is has_more.
  const rows = await storage.tasks.listForOwner(accountId, {
    limit: limit + 1,
    after,
    status,
    modelId: query.model,
  });
  const tasks = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  return { tasks, hasMore, nextCursor: hasMore ? tasks[tasks.length - 1].id : null };
}
