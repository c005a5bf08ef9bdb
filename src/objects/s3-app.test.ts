// The whole path with S3 storage: a gengate configured with S3_* against s3rver generates an image
// and a video, stores them in the bucket (not on disk), and serves them back whole and by range.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type S3rverHarness, startS3rver } from '../testing/s3rver.js';
import { createTaskTestApp, generate, type TaskTestApp, waitForFinal } from '../testing/tasks.js';

describe('results in S3 (s3rver)', () => {
  let s3rver: S3rverHarness;
  let app: TaskTestApp;
  let lister: S3Client;

  beforeAll(async () => {
    s3rver = await startS3rver('gengate-results');
    const credentials = { s3AccessKeyId: 'S3RVER', s3SecretAccessKey: 'S3RVER' };
    app = await createTaskTestApp({
      config: {
        s3Bucket: s3rver.bucket,
        s3Endpoint: s3rver.endpoint,
        s3ForcePathStyle: true,
        s3Prefix: 'results/',
        ...credentials,
      },
    });
    lister = new S3Client({
      region: 'us-east-1',
      endpoint: s3rver.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
  });

  afterAll(async () => {
    lister?.destroy();
    await app?.dispose();
    await s3rver?.close();
  });

  it('stores generated media in the bucket and serves it whole and by range', async () => {
    const key = await app.newKey({ balanceRub: 1000 });
    const image = await generate(app, key, { model_name: 'flux-1-1-pro', prompt: 'a lighthouse' });
    const video = await generate(app, key, { model_name: 'seedance-2', prompt: 'waves', duration: 5 });
    const imageTask = await waitForFinal(app, key, image.json().task_id);
    const videoTask = await waitForFinal(app, key, video.json().task_id);
    expect(imageTask.status).toBe('completed');
    expect(videoTask.status).toBe('completed');

    const listed = await lister.send(new ListObjectsV2Command({ Bucket: s3rver.bucket, Prefix: 'results/' }));
    const keys = (listed.Contents ?? []).map((object) => object.Key);
    expect(keys).toHaveLength(2);
    // Nothing went to local files.
    expect(existsSync(join(app.dataDir, 'objects'))).toBe(false);

    for (const url of [imageTask.result?.image_url, videoTask.result?.video_url] as string[]) {
      const name = new URL(url).pathname.split('/').at(-1) as string;
      expect(keys).toContain(`results/${name}`);
      const path = new URL(url).pathname;
      const whole = await app.http.inject({ method: 'GET', url: path });
      expect(whole.statusCode).toBe(200);
      const bytes = whole.rawPayload;
      expect(bytes.length).toBeGreaterThan(100);
      expect(Number(whole.headers['content-length'])).toBe(bytes.length);

      const part = await app.http.inject({ method: 'GET', url: path, headers: { range: 'bytes=10-49' } });
      expect(part.statusCode).toBe(206);
      expect(part.headers['content-range']).toBe(`bytes 10-49/${bytes.length}`);
      expect(part.rawPayload).toEqual(bytes.subarray(10, 50));

      const first = await app.http.inject({ method: 'GET', url: path, headers: { range: 'bytes=0-0' } });
      expect(first.statusCode).toBe(206);
      expect(first.rawPayload).toEqual(bytes.subarray(0, 1));

      const beyond = await app.http.inject({
        method: 'GET',
        url: path,
        headers: { range: `bytes=${bytes.length}-` },
      });
      expect(beyond.statusCode).toBe(416);
    }
    const missing = new URL(imageTask.result?.image_url as string).pathname.replace(
      /[^/]+$/,
      `${'A'.repeat(22)}.png`,
    );
    expect((await app.http.inject({ method: 'GET', url: missing })).statusCode).toBe(404);
  });
});
