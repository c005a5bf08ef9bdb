// The caller's videos for /v1/videos: video tasks of the account, made through any endpoint
// (POST /v1/videos or POST /generate), minus those the owner deleted.
import { AppError } from '../../domain/errors.js';
import type { TaskRow } from '../../storage/repositories/tasks.js';
import type { Storage } from '../../storage/storage.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const VIDEO_PAGE_DEFAULT = 20;
export const VIDEO_PAGE_MAX = 100;

export interface VideoPageQuery {
  limit?: string;
  after?: string;
  order?: string;
}

export interface VideoPage {
  videos: TaskRow[];
  hasMore: boolean;
}

/** DELETE /v1/videos/{id} leaves `deleted_at` in the result of the task it keeps. */
export function isDeletedVideo(task: TaskRow): boolean {
  if (!task.result) return false;
  const result: unknown = JSON.parse(task.result);
  return typeof (result as { deleted_at?: unknown } | null)?.deleted_at === 'string';
}

/** The owner's video task, deleted or not; undefined for anything else. */
async function ownVideoTask(storage: Storage, accountId: number, id: string): Promise<TaskRow | undefined> {
  if (!UUID.test(id)) return undefined;
  const task = await storage.tasks.getForOwner(accountId, id.toLowerCase());
  return task?.kind === 'video' ? task : undefined;
}

/** Another account's id, an image task, a deleted video and an unknown id are one 404. */
export async function ownVideo(storage: Storage, accountId: number, id: string): Promise<TaskRow> {
  const task = await ownVideoTask(storage, accountId, id);
  if (!task || isDeletedVideo(task)) throw new AppError('not_found', 'Video not found');
  return task;
}

/** One page of OpenAI's cursor list: `limit` 1–100 (20), `order` desc (newest first) or asc. */
export async function listVideos(
  storage: Storage,
  accountId: number,
  query: VideoPageQuery,
): Promise<VideoPage> {
  const rawLimit = query.limit ?? String(VIDEO_PAGE_DEFAULT);
  const limit = Number(rawLimit);
  if (!/^\d{1,3}$/.test(rawLimit) || limit < 1 || limit > VIDEO_PAGE_MAX)
    throw new AppError('invalid_parameter', `limit must be an integer from 1 to ${VIDEO_PAGE_MAX}`, 'limit');
  const order = query.order ?? 'desc';
  if (order !== 'asc' && order !== 'desc')
    throw new AppError('invalid_parameter', 'order must be asc or desc', 'order');
  let after: { createdAt: number; id: string } | undefined;
  if (query.after !== undefined) {
    // A deleted video still marks its place, so a client paging while deleting is not stranded.
    const cursor = await ownVideoTask(storage, accountId, query.after);
    if (!cursor)
      throw new AppError('invalid_parameter', 'after must be the id of one of your videos', 'after');
    after = { createdAt: cursor.created_at, id: cursor.id };
  }
  // One more than asked: whether it exists is has_more.
  const rows = await storage.tasks.videosForOwner(accountId, { order, limit: limit + 1, after });
  return { videos: rows.slice(0, limit), hasMore: rows.length > limit };
}
