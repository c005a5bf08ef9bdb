import { describe, expect, it } from 'vitest';
import type { ProviderTask } from '../task-provider.js';
import { parseDirectives, stripDirectives } from './directives.js';
import { SIM_FAILURES, SimulatorProvider, simulatedVideoTokens, submittedAtOf } from './simulator.js';

function clockAt(start: number) {
  const clock = { t: start, now: () => clock.t };
  return clock;
}

const task = (prompt: string, extra: Partial<ProviderTask> = {}): ProviderTask => ({
  id: 't1',
  modelId: 'seedance-2',
  upstreamModel: 'seedance-2',
  kind: 'video',
  params: { prompt, duration: 5, aspect_ratio: '16:9' },
  requeues: 0,
  ...extra,
});

describe('directives', () => {
  it('parses every directive, alone or combined', () => {
    expect(parseDirectives('a cat [sim:delay=500] [sim:fail=reject]')).toEqual({
      delayMs: 500,
      fail: 'reject',
    });
    expect(parseDirectives('[sim:busy=2,tokens=1000]')).toEqual({ busy: 2, tokens: 1000 });
    expect(parseDirectives('[SIM:FAIL=Timeout]')).toEqual({ fail: 'timeout' });
    expect(parseDirectives('[sim:fail=explode] [sim:delay=-1] [sim:delay=abc] plain')).toEqual({});
    expect(parseDirectives(undefined)).toEqual({});
  });
  it('strips directives from the prompt', () => {
    expect(stripDirectives('a cat [sim:delay=5]  on a mat')).toBe('a cat on a mat');
  });
});

describe('SimulatorProvider', () => {
  it('is resumable: a job id encodes its submit time, and any instance can poll it', async () => {
    const clock = clockAt(1_000_000);
    const submitted = await new SimulatorProvider(clock, 3000).submit(task('x [sim:delay=500]'));
    if (submitted.status !== 'submitted') throw new Error('expected a job');
    expect(submittedAtOf(submitted.jobId)).toBe(1_000_000);
    expect(submitted.retryAfterMs).toBe(500);
    // A different instance (a restarted worker) sees the same job.
    const other = new SimulatorProvider(clock, 3000);
    clock.t += 499;
    expect(await other.poll(submitted.jobId, task('x [sim:delay=500]'))).toEqual({
      status: 'running',
      retryAfterMs: 1,
    });
    clock.t += 1;
    const done = await other.poll(submitted.jobId, task('x [sim:delay=500]'));
    expect(done.status).toBe('succeeded');
  });

  it('uses SIM_LATENCY_MS without a delay directive', async () => {
    const clock = clockAt(0);
    const sim = new SimulatorProvider(clock, 3000);
    const job = await sim.submit(task('x'));
    if (job.status !== 'submitted') throw new Error('expected a job');
    clock.t = 2999;
    expect((await sim.poll(job.jobId, task('x'))).status).toBe('running');
    clock.t = 3000;
    expect((await sim.poll(job.jobId, task('x'))).status).toBe('succeeded');
  });

  it('at 0 ms answers the result at submit, like a synchronous upstream, rendering each scene once', async () => {
    const sim = new SimulatorProvider(clockAt(5_000), 0);
    const image = { kind: 'image' as const, params: { prompt: 'a red fox', aspect_ratio: '1:1' } };
    const first = await sim.submit(task('a red fox', image));
    if (first.status !== 'succeeded') throw new Error(`expected a result, got ${first.status}`);
    expect(submittedAtOf(first.jobId)).toBe(5_000);
    expect(first.outputs).toHaveLength(1);
    expect(first.outputs[0]).toMatchObject({ contentType: 'image/png', width: 512, height: 512 });
    const second = await sim.submit(task('a red fox', { ...image, id: 't2' }));
    if (second.status !== 'succeeded') throw new Error('expected a result');
    // The same scene is not rendered again: the very same bytes come back.
    expect(second.outputs[0].source).toBe(first.outputs[0].source);
    expect(second.jobId).not.toBe(first.jobId);
    // Scripted failures and delays still go through a job.
    expect((await sim.submit(task('x [sim:fail=reject]'))).status).toBe('submitted');
    expect((await sim.submit(task('x [sim:delay=5]'))).status).toBe('submitted');
  });

  it.each(['reject', 'billing', 'overload', 'params'] as const)(
    '[sim:fail=%s] fails with its message after the delay',
    async (kind) => {
      const clock = clockAt(0);
      const sim = new SimulatorProvider(clock, 10);
      const job = await sim.submit(task(`[sim:fail=${kind}]`));
      if (job.status !== 'submitted') throw new Error('expected a job');
      clock.t = 10;
      expect(await sim.poll(job.jobId, task(`[sim:fail=${kind}]`))).toEqual({
        status: 'failed',
        failure: SIM_FAILURES[kind],
      });
    },
  );

  it('[sim:fail=timeout] never answers', async () => {
    const clock = clockAt(0);
    const sim = new SimulatorProvider(clock, 10);
    const job = await sim.submit(task('[sim:fail=timeout]'));
    if (job.status !== 'submitted') throw new Error('expected a job');
    clock.t = 10_000_000;
    expect((await sim.poll(job.jobId, task('[sim:fail=timeout]'))).status).toBe('running');
  });

  it('[sim:busy=N] is busy until the task was re-queued N times', async () => {
    const sim = new SimulatorProvider(clockAt(0), 10);
    expect(await sim.submit(task('[sim:busy=2]', { requeues: 0 }))).toEqual({ status: 'busy' });
    expect(await sim.submit(task('[sim:busy=2]', { requeues: 1 }))).toEqual({ status: 'busy' });
    expect((await sim.submit(task('[sim:busy=2]', { requeues: 2 }))).status).toBe('submitted');
  });

  it('renders a deterministic MP4 of the aspect ratio, and reports tokens', async () => {
    const clock = clockAt(0);
    const run = async (prompt: string, params: Record<string, unknown>) => {
      const sim = new SimulatorProvider(clock, 0);
      const t = task(prompt, { params: { prompt, ...params } });
      const job = await sim.submit(t);
      // At 0 ms the result comes with the submit; otherwise from the first poll.
      if (job.status === 'succeeded') return job;
      if (job.status !== 'submitted') throw new Error('expected a job');
      const result = await sim.poll(job.jobId, t);
      if (result.status !== 'succeeded') throw new Error('expected a result');
      return result;
    };
    const a = await run('a fox', { aspect_ratio: '9:16', seed: 7, duration: 5 });
    const b = await run('a fox', { aspect_ratio: '9:16', seed: 7, duration: 5 });
    const c = await run('a fox', { aspect_ratio: '9:16', seed: 8, duration: 5 });
    const bytes = (r: typeof a) => (r.outputs[0].source as { data: Buffer }).data;
    expect(bytes(a).subarray(4, 8).toString()).toBe('ftyp');
    expect(bytes(a).equals(bytes(b))).toBe(true);
    expect(bytes(a).equals(bytes(c))).toBe(false);
    expect(a.outputs[0]).toMatchObject({ contentType: 'video/mp4', durationSec: 5 });
    expect(a.outputs[0].height! > a.outputs[0].width!).toBe(true);
    expect(a.usage?.tokens).toBe(simulatedVideoTokens({ aspect_ratio: '9:16', duration: 5 }));
    expect((await run('x [sim:tokens=1234]', {})).usage).toEqual({ tokens: 1234 });
  });

  it('simulated video tokens never exceed the catalog worst case for the resolution', () => {
    const worst = { '480p': 9720, '720p': 21600, '1080p': 48600 } as const;
    for (const resolution of Object.keys(worst) as (keyof typeof worst)[]) {
      for (const aspect_ratio of ['16:9', '4:3', '1:1', '3:4', '9:16', '21:9']) {
        const tokens = simulatedVideoTokens({ resolution, aspect_ratio, duration: 5 });
        expect(tokens).toBeGreaterThan(0);
        expect(tokens).toBeLessThanOrEqual(worst[resolution] * 5);
      }
    }
  });

  it('an image task renders a PNG', async () => {
    const sim = new SimulatorProvider(clockAt(0), 10);
    const t = task('a tree', { kind: 'image', params: { prompt: 'a tree', aspect_ratio: '1:1' } });
    const job = await sim.submit(t);
    if (job.status !== 'submitted') throw new Error('expected a job');
    const result = await new SimulatorProvider(clockAt(10), 10).poll(job.jobId, t);
    if (result.status !== 'succeeded') throw new Error('expected a result');
    expect(result.outputs[0]).toMatchObject({ contentType: 'image/png', width: 512, height: 512 });
    expect((result.outputs[0].source as { data: Buffer }).data.subarray(1, 4).toString()).toBe('PNG');
    expect(result.usage).toBeUndefined();
  });

  it('an unknown job id fails instead of hanging', async () => {
    expect((await new SimulatorProvider(clockAt(0), 0).poll('nope', task('x'))).status).toBe('failed');
  });
});
