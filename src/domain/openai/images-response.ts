// OpenAI's images response, {created, data: [{url} | {b64_json}]}, from an image task's result.

export type ImageDatum = { url: string } | { b64_json: string };

/** The result URLs of a completed image task (its result JSON): `images` when several, else `image_url`. */
export function imageUrlsOf(resultJson: string | null): string[] {
  const result = JSON.parse(resultJson ?? '{}') as { image_url?: unknown; images?: { url?: unknown }[] };
  if (Array.isArray(result.images) && result.images.length > 0)
    return result.images.map((image) => image.url).filter((url): url is string => typeof url === 'string');
  return typeof result.image_url === 'string' ? [result.image_url] : [];
}

/** `created` is the task's creation time, so every answer for one task is the same. */
export function imagesResponse(taskCreatedAtMs: number, data: ImageDatum[]) {
  return { created: Math.floor(taskCreatedAtMs / 1000), data };
}
