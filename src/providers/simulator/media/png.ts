import { constants, crc32, deflateSync } from 'node:zlib';
import { assertFrameSize } from './dimensions.js';
import { createScene, paintBackdrop, paintFrame, type RgbImage } from './raster.js';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const COLOR_TYPE_RGB = 2;
const FILTER_PAETH = 4;

/**
 * A PNG still of the simulator scene for (prompt, seed). Byte-identical for identical inputs on the
 * same zlib build (deflate output is deterministic for fixed settings and library version).
 */
export function renderPng(opts: { prompt: string; seed: number; width: number; height: number }): Buffer {
  assertFrameSize(opts.width, opts.height);
  const scene = createScene(opts.prompt, opts.seed);
  const image = paintFrame(paintBackdrop(scene, opts.width, opts.height), scene, { time: 0 });
  return encodePng(image);
}

export function encodePng(image: RgbImage): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(image.width, 0);
  header.writeUInt32BE(image.height, 4);
  header[8] = 8; // bits per channel
  header[9] = COLOR_TYPE_RGB;
  // Bytes 10..12 stay 0: deflate compression, adaptive filtering, no interlace.
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(filterScanlines(image), { strategy: constants.Z_RLE })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * Paeth filter on every row: the smooth gradients become near-constant residuals, which run-length
 * deflate packs about as well as level 9 at a fraction of the time (level 9 is pathological here).
 */
function filterScanlines(image: RgbImage): Buffer {
  const stride = image.width * 3;
  const px = image.pixels;
  const out = Buffer.alloc(image.height * (stride + 1));
  for (let y = 0; y < image.height; y++) {
    const row = y * stride;
    const above = row - stride;
    out[y * (stride + 1)] = FILTER_PAETH;
    for (let i = 0; i < stride; i++) {
      const left = i >= 3 ? px[row + i - 3] : 0;
      const up = y > 0 ? px[above + i] : 0;
      const upLeft = i >= 3 && y > 0 ? px[above + i - 3] : 0;
      out[y * (stride + 1) + 1 + i] = (px[row + i] - paethPredictor(left, up, upLeft)) & 0xff;
    }
  }
  return out;
}

function paethPredictor(left: number, up: number, upLeft: number): number {
  const estimate = left + up - upLeft;
  const toLeft = Math.abs(estimate - left);
  const toUp = Math.abs(estimate - up);
  const toUpLeft = Math.abs(estimate - upLeft);
  if (toLeft <= toUp && toLeft <= toUpLeft) return left;
  return toUp <= toUpLeft ? up : upLeft;
}

function chunk(type: string, data: Buffer): Buffer {
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const out = Buffer.alloc(4 + typeAndData.length + 4);
  out.writeUInt32BE(data.length, 0);
  typeAndData.copy(out, 4);
  out.writeUInt32BE(crc32(typeAndData), 8 + data.length);
  return out;
}
