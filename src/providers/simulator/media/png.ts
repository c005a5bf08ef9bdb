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
  const out = Buffer.allocUnsafe(image.height * (stride + 1));
  for (let y = 0; y < image.height; y++) {
    const row = y * stride;
    let at = y * (stride + 1);
    out[at++] = FILTER_PAETH;
    if (y === 0) {
      // No row above: Paeth predicts from the left neighbour only.
      for (let i = 0; i < stride; i++) out[at + i] = (px[i] - (i >= 3 ? px[i - 3] : 0)) & 0xff;
      continue;
    }
    const above = row - stride;
    for (let i = 0; i < 3; i++) out[at + i] = (px[row + i] - px[above + i]) & 0xff;
    // The Paeth predictor, inlined: this loop runs once per byte of the image.
    for (let i = 3; i < stride; i++) {
      const left = px[row + i - 3];
      const up = px[above + i];
      const upLeft = px[above + i - 3];
      const toLeft = Math.abs(up - upLeft);
      const toUp = Math.abs(left - upLeft);
      const toUpLeft = Math.abs(left + up - 2 * upLeft);
      const predicted = toLeft <= toUp && toLeft <= toUpLeft ? left : toUp <= toUpLeft ? up : upLeft;
      out[at + i] = (px[row + i] - predicted) & 0xff;
    }
  }
  return out;
}

function chunk(type: string, data: Buffer): Buffer {
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const out = Buffer.alloc(4 + typeAndData.length + 4);
  out.writeUInt32BE(data.length, 0);
  typeAndData.copy(out, 4);
  out.writeUInt32BE(crc32(typeAndData), 8 + data.length);
  return out;
}
