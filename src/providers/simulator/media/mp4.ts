import { assertFrameSize } from './dimensions.js';
import { encodeH264 } from './h264.js';
import { muxMp4 } from './mp4-container.js';
import { createScene, paintBackdrop, paintFrame } from './raster.js';

/**
 * The simulator only needs a playable clip of the right shape, not the requested length: rendering
 * is capped at MAX_RENDERED_SECONDS so a "10 s" request still costs well under 200 ms and a few
 * hundred KB. Callers report the requested duration themselves.
 */
export const MAX_RENDERED_SECONDS = 2;
export const FRAMES_PER_SECOND = 10;
/** I_PCM stores raw samples, so frame area is capped to keep files small. */
const MAX_SIDE = 1920;

export type RenderedVideo = { bytes: Buffer; contentType: 'video/mp4'; width: number; height: number };

/** A deterministic H.264/MP4 clip for (prompt, seed): an orb orbits a static patterned backdrop. */
export function renderVideo(opts: {
  prompt: string;
  seed: number;
  width: number;
  height: number;
  seconds: number;
}): RenderedVideo {
  const { width, height } = opts;
  assertFrameSize(width, height, { multipleOf: 2, max: MAX_SIDE });
  if (!Number.isFinite(opts.seconds) || opts.seconds <= 0) {
    throw new RangeError(`seconds must be a positive number, got ${opts.seconds}`);
  }
  const frameCount = Math.max(
    2,
    Math.round(Math.min(opts.seconds, MAX_RENDERED_SECONDS) * FRAMES_PER_SECOND),
  );
  const scene = createScene(opts.prompt, opts.seed);
  const backdrop = paintBackdrop(scene, width, height);
  const frames = Array.from({ length: frameCount }, (_, index) =>
    paintFrame(backdrop, scene, { time: index / frameCount, progress: (index + 1) / frameCount }),
  );
  const bytes = muxMp4(encodeH264(frames), { width, height, fps: FRAMES_PER_SECOND });
  return { bytes, contentType: 'video/mp4', width, height };
}
