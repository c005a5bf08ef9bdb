// DELETE /v1/videos/{id}: the owner drops a final video's stored media. The task row stays (it is the
// billing record: the ledger is never touched) and its result only gains `deleted_at`: a final
// task's answer is cached by GET /tasks/{id} in every process, so it keeps its fields (its
// video_url now answers 404). From then on the video is gone from /v1/videos (404, not listed).
import { AppError } from '../../domain/errors.js';
import type { ObjectStore } from '../../objects/object-store.js';
import type { Storage } from '../../storage/storage.js';
import type { Clock } from '../clock.js';
import { objectNameOf } from './result-object.js';
import { ownVideo } from './videos.js';

export interface DeleteVideoDeps {
  storage: Storage;
  objects: ObjectStore;
  clock: Clock;
}

/** The deleted video's id; 404 for anything that is not the caller's undeleted video. */
export async function deleteVideo(
  deps: DeleteVideoDeps,
  accountId: number,
  videoId: string,
): Promise<string> {
  const task = await ownVideo(deps.storage, accountId, videoId);
  if (task.status !== 'completed' && task.status !== 'failed') {
    // As OpenAI: only a completed or failed video can be deleted; a running one would still be
    // charged and stored after the "deletion".
    throw new AppError(
      'video_not_ready',
      'The video is still being generated: only a completed or failed video can be deleted',
    );
  }
  const result = task.result ? (JSON.parse(task.result) as Record<string, unknown>) : {};
  // The file first: a failure here leaves the video as it was, and the client's retry completes the
  // deletion (deleting a missing object is a no-op). The mark then makes the video disappear.
  const name = typeof result.video_url === 'string' ? objectNameOf(result.video_url) : undefined;
  if (name !== undefined) await deps.objects.delete(name);
  const now = deps.clock.now();
  const marked = await deps.storage.tasks.markVideoDeleted(accountId, task.id, {
    result: JSON.stringify({ ...result, deleted_at: new Date(now).toISOString() }),
    now,
  });
  // Lost a race with another DELETE of the same video: it is deleted all the same, but this request
  // answers as a DELETE of a deleted video does.
  if (!marked) throw new AppError('not_found', 'Video not found');
  return task.id;
}
