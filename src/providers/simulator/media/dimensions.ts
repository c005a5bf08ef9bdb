export type Dimensions = { width: number; height: number };

/** Small on purpose: simulator media only has to be viewable, not pretty. */
export const DEFAULT_VIDEO_LONG_SIDE = 320;
export const DEFAULT_IMAGE_LONG_SIDE = 512;

const DEFAULT_RATIO = { w: 16, h: 9 };

/**
 * Video frame size for an aspect ratio like "16:9": both sides are multiples of 16 (whole H.264
 * macroblocks), the long side is `longSide` rounded to 16. Missing or unparsable ratios mean 16:9.
 */
export function dimensionsFor(
  aspectRatio: string | undefined,
  longSide = DEFAULT_VIDEO_LONG_SIDE,
): Dimensions {
  return fitRatio(parseAspectRatio(aspectRatio), longSide, 16);
}

/** Image size for an aspect ratio: even sides only, so the ratio is matched more closely. */
export function imageDimensionsFor(
  aspectRatio: string | undefined,
  longSide = DEFAULT_IMAGE_LONG_SIDE,
): Dimensions {
  return fitRatio(parseAspectRatio(aspectRatio), longSide, 2);
}

function parseAspectRatio(aspectRatio: string | undefined): { w: number; h: number } {
  const match = /^\s*(\d+(?:\.\d+)?)\s*[:x/]\s*(\d+(?:\.\d+)?)\s*$/i.exec(aspectRatio ?? '');
  if (!match) return DEFAULT_RATIO;
  const w = Number(match[1]);
  const h = Number(match[2]);
  return w > 0 && h > 0 ? { w, h } : DEFAULT_RATIO;
}

function fitRatio(ratio: { w: number; h: number }, longSide: number, multiple: number): Dimensions {
  if (!Number.isFinite(longSide) || longSide <= 0) throw new RangeError(`invalid long side: ${longSide}`);
  const roundTo = (value: number) => Math.max(multiple, Math.round(value / multiple) * multiple);
  const long = roundTo(longSide);
  const short = roundTo((long * Math.min(ratio.w, ratio.h)) / Math.max(ratio.w, ratio.h));
  return ratio.w >= ratio.h ? { width: long, height: short } : { width: short, height: long };
}

/** Rejects sizes that are not positive integers, not multiples of `multipleOf`, or over `max`. */
export function assertFrameSize(width: number, height: number, { multipleOf = 1, max = 4096 } = {}): void {
  for (const [name, value] of [
    ['width', width],
    ['height', height],
  ] as const) {
    if (!Number.isInteger(value) || value < multipleOf || value > max || value % multipleOf !== 0) {
      throw new RangeError(
        `${name} must be a multiple of ${multipleOf} between ${multipleOf} and ${max}, got ${value}`,
      );
    }
  }
}
