// The object behind a task's result URL ({PUBLIC_URL}/objects/{name}). Only the name counts, so a
// result stays readable after PUBLIC_URL changes.
import { AppError } from '../../domain/errors.js';
import type { ObjectBody, ObjectStore } from '../../objects/object-store.js';

export function objectNameOf(url: string): string | undefined {
  try {
    const name = new URL(url).pathname.split('/').pop();
    return name ? decodeURIComponent(name) : undefined;
  } catch {
    return undefined;
  }
}

/** The whole object; a missing one is a server fault (results are never deleted), not the client's. */
export async function readResultObject(objects: ObjectStore, url: string): Promise<Buffer> {
  const body = await openResultObject(objects, url);
  const chunks: Buffer[] = [];
  for await (const chunk of body.stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function openResultObject(objects: ObjectStore, url: string): Promise<ObjectBody> {
  const name = objectNameOf(url);
  const body = name === undefined ? undefined : await objects.get(name);
  if (!body) throw new AppError('internal_error', 'The result file of this task is missing');
  return body;
}
