// End to end through a real listening port: create a seedance-2 task, let the embedded runner finish
// it, download its video_url (a real MP4, with Range) and check the balance fell by exactly the price.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTaskTestApp, expectLedgerClean, freePort, type TaskTestApp } from '../../../testing/tasks.js';

/** ffprobe decodes the file when the machine has it (Debian's ffmpeg); the byte checks run always. */
const FFPROBE = (() => {
  try {
    execFileSync('ffprobe', ['-version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

function probe(bytes: Buffer): { codec_name: string; width: number; height: number; nb_read_frames: string } {
  const dir = mkdtempSync(join(tmpdir(), 'gengate-probe-'));
  try {
    writeFileSync(join(dir, 'v.mp4'), bytes);
    const out = execFileSync('ffprobe', [
      '-v',
      'error',
      '-count_frames',
      '-show_entries',
      'stream=codec_name,width,height,nb_read_frames',
      '-of',
      'json',
      join(dir, 'v.mp4'),
    ]);
    const stream = JSON.parse(out.toString()).streams[0];
    expect(Number(stream.nb_read_frames)).toBeGreaterThanOrEqual(2);
    return stream;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let app: TaskTestApp;
let base: string;

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  app = await createTaskTestApp({ config: { port, publicUrl: base } });
  await app.http.listen({ host: '127.0.0.1', port });
});

afterAll(async () => {
  await expectLedgerClean(app);
  await app.dispose();
});

async function api(path: string, secret: string, init: RequestInit = {}) {
  const res = await fetch(`${base}${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${secret}`,
      'content-type': 'application/json',
      ...(init.headers ?? {}),
    },
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function finished(secret: string, taskId: string) {
  for (let i = 0; i < 500; i++) {
    const { body } = await api(`/tasks/${taskId}`, secret);
    if (body.status === 'completed' || body.status === 'failed') return body;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('task did not finish');
}

describe.each([
  { coefficient: 1, price: 45 },
  { coefficient: 1.2, price: 54 },
])('seedance-2 at coefficient $coefficient', ({ coefficient, price }) => {
  it(`completes, serves a playable MP4 with Range, and costs exactly ${price} RUB`, async () => {
    const key = await app.newKey({ balanceRub: 1000, coefficient });
    const created = await api('/generate', key.secret, {
      method: 'POST',
      body: JSON.stringify({
        params: {
          model_name: 'seedance-2',
          prompt: 'a lighthouse at dawn',
          aspect_ratio: '16:9',
          duration: 5,
        },
      }),
    });
    expect(created.status).toBe(202);
    const task = await finished(key.secret, created.body.task_id);
    expect(task.status).toBe('completed');
    expect(task.result.duration).toBe(5);
    const videoUrl: string = task.result.video_url;
    expect(videoUrl.startsWith(`${base}/objects/`)).toBe(true);

    // No API key needed: the unguessable URL is the capability.
    const full = await fetch(videoUrl);
    expect(full.status).toBe(200);
    expect(full.headers.get('content-type')).toBe('video/mp4');
    expect(full.headers.get('accept-ranges')).toBe('bytes');
    const bytes = Buffer.from(await full.arrayBuffer());
    expect(Number(full.headers.get('content-length'))).toBe(bytes.length);
    expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
    expect(bytes.includes(Buffer.from('moov'))).toBe(true);
    expect(bytes.includes(Buffer.from('avc1'))).toBe(true);
    if (FFPROBE) expect(probe(bytes)).toMatchObject({ codec_name: 'h264', width: 320, height: 176 });

    const part = await fetch(videoUrl, { headers: { range: 'bytes=100-299' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 100-299/${bytes.length}`);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(bytes.subarray(100, 300));

    const tail = await fetch(videoUrl, { headers: { range: 'bytes=-10' } });
    expect(tail.status).toBe(206);
    expect(Buffer.from(await tail.arrayBuffer())).toEqual(bytes.subarray(bytes.length - 10));

    const open = await fetch(videoUrl, { headers: { range: `bytes=${bytes.length - 5}-` } });
    expect(open.status).toBe(206);
    expect(Buffer.from(await open.arrayBuffer())).toEqual(bytes.subarray(bytes.length - 5));

    const beyond = await fetch(videoUrl, { headers: { range: `bytes=${bytes.length}-` } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
    expect(((await beyond.json()) as any).error.code).toBe('range_not_satisfiable');

    const balance = await api('/me/balance', key.secret);
    expect(balance.body.key_balance).toBe(1000 - price);
  });
});

it('unknown or malformed object names are 404', async () => {
  for (const name of [
    'AAAAAAAAAAAAAAAAAAAAAA.mp4',
    '..%2F..%2Fgengate.db',
    'x.mp4',
    'AAAAAAAAAAAAAAAAAAAAAA.exe',
  ]) {
    const res = await fetch(`${base}/objects/${name}`);
    expect(res.status).toBe(404);
    await res.arrayBuffer();
  }
});

it('HEAD gives the size and type without the body', async () => {
  const key = await app.newKey({ balanceRub: 100 });
  const created = await api('/generate', key.secret, {
    method: 'POST',
    body: JSON.stringify({ params: { model_name: 'nano-banana', prompt: 'x' } }),
  });
  const task = await finished(key.secret, created.body.task_id);
  const head = await fetch(task.result.image_url, { method: 'HEAD' });
  expect(head.status).toBe(200);
  expect(head.headers.get('content-type')).toBe('image/png');
  expect(Number(head.headers.get('content-length'))).toBeGreaterThan(100);
});

it('results stay downloadable in maintenance mode, while the API answers 503', async () => {
  const key = await app.newKey({ balanceRub: 100 });
  const created = await api('/generate', key.secret, {
    method: 'POST',
    body: JSON.stringify({ params: { model_name: 'nano-banana', prompt: 'y' } }),
  });
  const task = await finished(key.secret, created.body.task_id);
  await app.ctx.maintenance.set(true);
  try {
    expect((await api(`/tasks/${task.task_id}`, key.secret)).status).toBe(503);
    const file = await fetch(task.result.image_url);
    expect(file.status).toBe(200);
    await file.arrayBuffer();
  } finally {
    await app.ctx.maintenance.set(false);
  }
});
