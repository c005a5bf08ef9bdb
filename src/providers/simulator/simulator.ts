// The built-in provider: real, viewable media (a PNG or an H.264 MP4 of the requested aspect
// ratio), deterministic for a prompt and seed, scripted by the prompt directives of DESIGN.md §5.
// It keeps no state: a job id encodes its submit time and the directives are re-read from the task,
// so a worker that restarts resumes the same job and never submits it again.
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../services/clock.js';
import type {
  PollOutcome,
  ProviderFailure,
  ProviderOutput,
  ProviderTask,
  SubmitOutcome,
  TaskProvider,
} from '../task-provider.js';
import { parseDirectives, type SimDirectives, stripDirectives } from './directives.js';
import { dimensionsFor, imageDimensionsFor } from './media/dimensions.js';
import { renderVideo } from './media/mp4.js';
import { renderPng } from './media/png.js';

const JOB_ID = /^sim_([0-9a-z]{1,12})_[0-9a-f]{12}$/;
/** A job that never answers is polled rarely; the runner clamps the wait to the task's deadline. */
const NEVER_MS = 3_600_000;
/**
 * Rendering costs milliseconds of CPU on our event loop (an upstream would do it on its own
 * machines), so identical requests (kind, prompt, seed, shape, length) reuse the bytes: an LRU
 * bounded by entries and by bytes. The object store then writes each distinct result once.
 */
const RENDER_CACHE_ENTRIES = 64;
const RENDER_CACHE_BYTES = 32 * 1024 * 1024;

/** What each `[sim:fail=…]` directive reports, as a real adapter would. */
export const SIM_FAILURES: Record<'reject' | 'billing' | 'overload' | 'params', ProviderFailure> = {
  reject: { kind: 'rejected' },
  billing: { kind: 'billing' },
  overload: { kind: 'overload' },
  params: { kind: 'params', message: 'Parameter validation failed: invalid aspect_ratio for this provider' },
};

export function simulatorJobId(submittedAt: number): string {
  return `sim_${submittedAt.toString(36)}_${randomBytes(6).toString('hex')}`;
}

export function submittedAtOf(jobId: string): number | undefined {
  const match = JOB_ID.exec(jobId);
  return match ? Number.parseInt(match[1], 36) : undefined;
}

/** Video tokens as token-billed video models count them: width × height × 24 fps × seconds / 1024. */
export function simulatedVideoTokens(params: Record<string, unknown>): number {
  const short = { '480p': 480, '720p': 720, '1080p': 1080 }[String(params.resolution)] ?? 720;
  const box = { width: Math.round((short * 16) / 9), height: short };
  const frame = dimensionsFor(
    typeof params.aspect_ratio === 'string' ? params.aspect_ratio : undefined,
    1000,
  );
  const scale = Math.min(box.width / frame.width, box.height / frame.height);
  const seconds = typeof params.duration === 'number' && params.duration > 0 ? params.duration : 5;
  return Math.ceil(
    (Math.round(frame.width * scale) * Math.round(frame.height * scale) * 24 * seconds) / 1024,
  );
}

export class SimulatorProvider implements TaskProvider {
  readonly type = 'simulator';
  /** Insertion order is recency order: a hit is moved to the end, the oldest is evicted first. */
  private readonly renders = new Map<string, ProviderOutput>();
  private renderedBytes = 0;

  constructor(
    private readonly clock: Clock,
    private readonly defaultLatencyMs: number,
  ) {}

  private directives(task: ProviderTask): SimDirectives {
    return parseDirectives(typeof task.params.prompt === 'string' ? task.params.prompt : undefined);
  }

  async submit(task: ProviderTask): Promise<SubmitOutcome> {
    const directives = this.directives(task);
    // [sim:busy=N]: "Concurrency limit exceeded" until the task has been re-queued N times.
    if ((directives.busy ?? 0) > task.requeues) return { status: 'busy' };
    const jobId = simulatorJobId(this.clock.now());
    const delayMs = directives.delayMs ?? this.defaultLatencyMs;
    // At 0 ms the job is done when it is submitted: answer like a synchronous upstream.
    if (delayMs === 0 && !directives.fail)
      return { status: 'succeeded', jobId, ...this.result(task, directives) };
    return { status: 'submitted', jobId, retryAfterMs: delayMs };
  }

  private result(task: ProviderTask, directives: SimDirectives) {
    const usage =
      task.kind === 'video' ? { tokens: directives.tokens ?? simulatedVideoTokens(task.params) } : undefined;
    return { outputs: [this.render(task)], usage };
  }

  async poll(jobId: string, task: ProviderTask): Promise<PollOutcome> {
    const submittedAt = submittedAtOf(jobId);
    if (submittedAt === undefined)
      return { status: 'failed', failure: { kind: 'upstream', detail: `unknown simulator job ${jobId}` } };
    const directives = this.directives(task);
    if (directives.fail === 'timeout') return { status: 'running', retryAfterMs: NEVER_MS };
    const readyAt = submittedAt + (directives.delayMs ?? this.defaultLatencyMs);
    const now = this.clock.now();
    if (now < readyAt) return { status: 'running', retryAfterMs: readyAt - now };
    if (directives.fail) return { status: 'failed', failure: SIM_FAILURES[directives.fail] };
    return { status: 'succeeded', ...this.result(task, directives) };
  }

  private render(task: ProviderTask): ProviderOutput {
    const prompt = stripDirectives(typeof task.params.prompt === 'string' ? task.params.prompt : undefined);
    const seed = typeof task.params.seed === 'number' ? task.params.seed : 0;
    const aspectRatio = typeof task.params.aspect_ratio === 'string' ? task.params.aspect_ratio : undefined;
    const seconds =
      typeof task.params.duration === 'number' && task.params.duration > 0 ? task.params.duration : 5;
    const cacheKey = JSON.stringify([
      task.kind,
      prompt,
      seed,
      aspectRatio,
      task.kind === 'video' ? seconds : 0,
    ]);
    const cached = this.renders.get(cacheKey);
    if (cached) {
      this.renders.delete(cacheKey);
      this.renders.set(cacheKey, cached);
      return cached;
    }
    let output: ProviderOutput;
    if (task.kind === 'image') {
      const size = imageDimensionsFor(aspectRatio);
      output = {
        source: { kind: 'bytes', data: renderPng({ prompt, seed, ...size }) },
        contentType: 'image/png',
        ...size,
      };
    } else {
      const size = dimensionsFor(aspectRatio);
      const video = renderVideo({ prompt, seed, ...size, seconds });
      output = {
        source: { kind: 'bytes', data: video.bytes },
        contentType: video.contentType,
        ...size,
        durationSec: seconds,
      };
    }
    this.remember(cacheKey, output);
    return output;
  }

  private remember(cacheKey: string, output: ProviderOutput): void {
    const size = output.source.kind === 'bytes' ? output.source.data.length : 0;
    if (size > RENDER_CACHE_BYTES) return;
    this.renders.set(cacheKey, output);
    this.renderedBytes += size;
    for (const [key, old] of this.renders) {
      if (this.renders.size <= RENDER_CACHE_ENTRIES && this.renderedBytes <= RENDER_CACHE_BYTES) break;
      this.renders.delete(key);
      this.renderedBytes -= old.source.kind === 'bytes' ? old.source.data.length : 0;
    }
  }
}
