import { crc32, inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { dimensionsFor, imageDimensionsFor } from './dimensions.js';
import { MAX_RENDERED_SECONDS, renderVideo } from './mp4.js';
import { encodePng, renderPng } from './png.js';
import { wrapText } from './raster.js';

describe('dimensionsFor (video)', () => {
  it.each([
    ['16:9', 320, 176],
    ['9:16', 176, 320],
    ['4:3', 320, 240],
    ['3:4', 240, 320],
    ['1:1', 320, 320],
    ['21:9', 320, 144],
  ])('%s -> %ix%i', (ratio, width, height) => {
    expect(dimensionsFor(ratio)).toEqual({ width, height });
  });

  it('falls back to 16:9 when the ratio is missing or unparsable', () => {
    for (const ratio of [undefined, '', 'wide', '16:0', '-4:3', '4:3:2']) {
      expect(dimensionsFor(ratio)).toEqual({ width: 320, height: 176 });
    }
  });

  it('keeps both sides multiples of 16 for any long side and ratio', () => {
    for (const longSide of [100, 320, 333, 1280]) {
      for (const ratio of ['16:9', '9:16', '2.39:1', '100:1']) {
        const { width, height } = dimensionsFor(ratio, longSide);
        expect(width % 16).toBe(0);
        expect(height % 16).toBe(0);
        expect(Math.min(width, height)).toBeGreaterThanOrEqual(16);
      }
    }
  });

  it('rejects a non-positive long side', () => {
    expect(() => dimensionsFor('16:9', 0)).toThrow(RangeError);
  });
});

describe('imageDimensionsFor', () => {
  it('uses even sides and a 512 px long side by default', () => {
    expect(imageDimensionsFor('16:9')).toEqual({ width: 512, height: 288 });
    expect(imageDimensionsFor('9:16')).toEqual({ width: 288, height: 512 });
    expect(imageDimensionsFor('21:9', 1000)).toEqual({ width: 1000, height: 428 });
  });
});

describe('wrapText', () => {
  it('wraps on words, splits overlong words and marks truncation', () => {
    expect(wrapText('a quick brown fox', 8, 3)).toEqual(['a quick', 'brown', 'fox']);
    expect(wrapText('abcdefghij', 4, 3)).toEqual(['abcd', 'efgh', 'ij']);
    expect(wrapText('one two three four', 9, 1)).toEqual(['one tw...']);
  });

  it('counts code points, not UTF-16 units', () => {
    expect(wrapText('🚀🚀🚀', 2, 2)).toEqual(['🚀🚀', '🚀']);
  });

  it('returns no lines for blank text', () => {
    expect(wrapText(' \n\t ', 10, 2)).toEqual([]);
  });
});

describe('renderPng', () => {
  const opts = { prompt: 'a red fox in the snow', seed: 42, width: 288, height: 512 };

  it('writes a valid RGB PNG of the requested size', () => {
    const png = renderPng(opts);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const chunks = readPngChunks(png);
    expect(chunks.map((chunk) => chunk.type)).toEqual(['IHDR', 'IDAT', 'IEND']);
    for (const chunk of chunks) expect(chunk.crcValid, `${chunk.type} CRC`).toBe(true);
    const header = chunks[0].data;
    expect(header.readUInt32BE(0)).toBe(288);
    expect(header.readUInt32BE(4)).toBe(512);
    expect([header[8], header[9]]).toEqual([8, 2]); // 8-bit RGB
    const scanlines = inflateSync(chunks[1].data);
    expect(scanlines.length).toBe(512 * (1 + 3 * 288));
  });

  it('shows a varied picture, not a flat fill', () => {
    const { pixels } = decodePng(renderPng(opts));
    const colors = new Set<number>();
    for (let i = 0; i < pixels.length; i += 3)
      colors.add((pixels[i] << 16) | (pixels[i + 1] << 8) | pixels[i + 2]);
    expect(colors.size).toBeGreaterThan(500);
  });

  it('round-trips arbitrary pixels through its filters', () => {
    const width = 61;
    const height = 37;
    let state = 12345;
    const pixels = Uint8Array.from({ length: width * height * 3 }, () => {
      state = (state * 1103515245 + 12345) >>> 0; // LCG: noisy but reproducible
      return state >>> 24;
    });
    expect(decodePng(encodePng({ width, height, pixels }))).toEqual({
      width,
      height,
      pixels: Buffer.from(pixels),
    });
  });

  it('is deterministic in prompt and seed', () => {
    expect(renderPng(opts).equals(renderPng({ ...opts }))).toBe(true);
    expect(renderPng(opts).equals(renderPng({ ...opts, seed: 43 }))).toBe(false);
    expect(renderPng(opts).equals(renderPng({ ...opts, prompt: 'a red fox in the sun' }))).toBe(false);
  });

  it('changes the whole scene with the seed, not just the seed label', () => {
    const a = decodePng(renderPng(opts)).pixels;
    const b = decodePng(renderPng({ ...opts, seed: 43 })).pixels;
    let differing = 0;
    for (let i = 0; i < a.length; i += 3)
      if (a[i] !== b[i] || a[i + 1] !== b[i + 1] || a[i + 2] !== b[i + 2]) differing++;
    expect(differing / (a.length / 3)).toBeGreaterThan(0.5);
  });

  it('rejects impossible sizes', () => {
    expect(() => renderPng({ ...opts, width: 0 })).toThrow(RangeError);
    expect(() => renderPng({ ...opts, height: 10.5 })).toThrow(RangeError);
  });
});

describe('renderVideo', () => {
  const opts = { prompt: 'a lighthouse in a storm', seed: 7, ...dimensionsFor('9:16'), seconds: 5 };
  const video = renderVideo(opts);
  const boxes = readBoxes(video.bytes);

  it('lays out ftyp, moov, mdat covering the whole file', () => {
    expect(video.contentType).toBe('video/mp4');
    expect(boxes.map((box) => box.type)).toEqual(['ftyp', 'moov', 'mdat']);
    expect(boxes.reduce((sum, box) => sum + box.size, 0)).toBe(video.bytes.length);
  });

  it('declares the requested frame size in tkhd, avc1 and the SPS', () => {
    expect([video.width, video.height]).toEqual([176, 320]);
    const tkhd = findBox(boxes, 'moov/trak/tkhd').data;
    // Version/flags (4) + version 0 fields (72) precede the 16.16 fixed-point width and height.
    expect(tkhd.readUInt32BE(76) / 0x10000).toBe(176);
    expect(tkhd.readUInt32BE(80) / 0x10000).toBe(320);
    const avc1 = findBox(boxes, 'moov/trak/mdia/minf/stbl/stsd').data.subarray(8);
    expect(avc1.toString('latin1', 4, 8)).toBe('avc1');
    expect([avc1.readUInt16BE(32), avc1.readUInt16BE(34)]).toEqual([176, 320]);
    expect(spsFrameSize(avcConfig(video.bytes).sps)).toEqual({ width: 176, height: 320 });
  });

  it('crops macroblock padding when the size is not a multiple of 16', () => {
    const cropped = renderVideo({ ...opts, width: 322, height: 182, seconds: 1 });
    expect(spsFrameSize(avcConfig(cropped.bytes).sps)).toEqual({ width: 322, height: 182 });
  });

  it('describes H.264 Constrained Baseline in avcC', () => {
    const config = avcConfig(video.bytes);
    expect(config.profile).toBe(66);
    expect(config.sps[0] & 0x1f).toBe(7);
    expect(config.pps[0] & 0x1f).toBe(8);
  });

  it('indexes samples that exactly fill mdat', () => {
    const stbl = (name: string) => findBox(boxes, `moov/trak/mdia/minf/stbl/${name}`).data;
    const sampleCount = stbl('stts').readUInt32BE(8);
    expect(sampleCount).toBeGreaterThan(1);
    const stsz = stbl('stsz');
    expect(stsz.readUInt32BE(8)).toBe(sampleCount);
    const sizes = Array.from({ length: sampleCount }, (_, i) => stsz.readUInt32BE(12 + 4 * i));
    const mdat = findBox(boxes, 'mdat');
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(mdat.data.length);
    expect(stbl('stco').readUInt32BE(8)).toBe(mdat.offset + 8);
  });

  it('starts with an IDR picture and moves in every later picture', () => {
    const samples = readSamples(video.bytes, boxes);
    const nalTypes = samples.map((sample) => sample[4] & 0x1f);
    expect(nalTypes[0]).toBe(5);
    expect(nalTypes.slice(1).every((type) => type === 1)).toBe(true);
    // An I_PCM macroblock is 384 bytes: each P picture must carry at least one changed macroblock.
    for (const sample of samples.slice(1)) expect(sample.length).toBeGreaterThan(384);
    // ...but far fewer than all of them, since the backdrop is static.
    for (const sample of samples.slice(1)) expect(sample.length).toBeLessThan(samples[0].length / 2);
    const stss = findBox(boxes, 'moov/trak/mdia/minf/stbl/stss').data;
    expect([stss.readUInt32BE(4), stss.readUInt32BE(8)]).toEqual([1, 1]);
  });

  it('caps the rendered length and reports it consistently in mvhd', () => {
    const mvhd = findBox(readBoxes(renderVideo({ ...opts, seconds: 30 }).bytes), 'moov/mvhd').data;
    const seconds = mvhd.readUInt32BE(16) / mvhd.readUInt32BE(12);
    expect(seconds).toBe(MAX_RENDERED_SECONDS);
    const short = findBox(readBoxes(renderVideo({ ...opts, seconds: 1 }).bytes), 'moov/mvhd').data;
    expect(short.readUInt32BE(16) / short.readUInt32BE(12)).toBe(1);
  });

  it('is deterministic in prompt and seed', () => {
    expect(renderVideo(opts).bytes.equals(video.bytes)).toBe(true);
    expect(renderVideo({ ...opts, seed: 8 }).bytes.equals(video.bytes)).toBe(false);
    expect(renderVideo({ ...opts, prompt: 'a lighthouse in the sun' }).bytes.equals(video.bytes)).toBe(false);
  });

  it('gives landscape ratios a landscape frame', () => {
    const landscape = renderVideo({ ...opts, ...dimensionsFor('16:9') });
    const tkhd = findBox(readBoxes(landscape.bytes), 'moov/trak/tkhd').data;
    expect(tkhd.readUInt32BE(76)).toBeGreaterThan(tkhd.readUInt32BE(80));
  });

  it('rejects odd sizes and non-positive durations', () => {
    expect(() => renderVideo({ ...opts, width: 175 })).toThrow(RangeError);
    expect(() => renderVideo({ ...opts, seconds: 0 })).toThrow(RangeError);
    expect(() => renderVideo({ ...opts, seconds: Number.NaN })).toThrow(RangeError);
  });
});

// --- PNG reading -------------------------------------------------------------------------------

function readPngChunks(png: Buffer): { type: string; data: Buffer; crcValid: boolean }[] {
  const chunks = [];
  for (let offset = 8; offset < png.length; ) {
    const length = png.readUInt32BE(offset);
    const typeAndData = png.subarray(offset + 4, offset + 8 + length);
    chunks.push({
      type: typeAndData.toString('latin1', 0, 4),
      data: typeAndData.subarray(4),
      crcValid: png.readUInt32BE(offset + 8 + length) === crc32(typeAndData),
    });
    offset += 12 + length;
  }
  return chunks;
}

/** Full PNG decode for 8-bit RGB, handling all five scanline filters. */
function decodePng(png: Buffer): { width: number; height: number; pixels: Buffer } {
  const chunks = readPngChunks(png);
  const width = chunks[0].data.readUInt32BE(0);
  const height = chunks[0].data.readUInt32BE(4);
  const raw = inflateSync(Buffer.concat(chunks.filter((c) => c.type === 'IDAT').map((c) => c.data)));
  const stride = width * 3;
  const pixels = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    for (let i = 0; i < stride; i++) {
      const left = i >= 3 ? pixels[y * stride + i - 3] : 0;
      const up = y > 0 ? pixels[(y - 1) * stride + i] : 0;
      const upLeft = i >= 3 && y > 0 ? pixels[(y - 1) * stride + i - 3] : 0;
      const estimate = left + up - upLeft;
      const paeth = [left, up, upLeft].sort((a, b) => Math.abs(estimate - a) - Math.abs(estimate - b))[0];
      const predictor = [0, left, up, (left + up) >> 1, paeth][filter];
      pixels[y * stride + i] = (raw[y * (stride + 1) + 1 + i] + predictor) & 0xff;
    }
  }
  return { width, height, pixels };
}

// --- MP4 reading -------------------------------------------------------------------------------

type Box = { type: string; offset: number; size: number; data: Buffer; children: Box[] };

const CONTAINER_BOXES = new Set(['moov', 'trak', 'mdia', 'minf', 'stbl', 'dinf']);

function readBoxes(file: Buffer, start = 0, end = file.length): Box[] {
  const boxes: Box[] = [];
  for (let offset = start; offset < end; ) {
    const size = file.readUInt32BE(offset);
    expect(size).toBeGreaterThanOrEqual(8);
    expect(offset + size).toBeLessThanOrEqual(end);
    const type = file.toString('latin1', offset + 4, offset + 8);
    const children = CONTAINER_BOXES.has(type) ? readBoxes(file, offset + 8, offset + size) : [];
    boxes.push({ type, offset, size, data: file.subarray(offset + 8, offset + size), children });
    offset += size;
  }
  return boxes;
}

function findBox(boxes: Box[], path: string): Box {
  const [head, ...rest] = path.split('/');
  const box = boxes.find((candidate) => candidate.type === head);
  if (!box) throw new Error(`missing box ${head}`);
  return rest.length === 0 ? box : findBox(box.children, rest.join('/'));
}

function avcConfig(file: Buffer): { profile: number; sps: Buffer; pps: Buffer } {
  const stsd = findBox(readBoxes(file), 'moov/trak/mdia/minf/stbl/stsd').data;
  // stsd: full box header + entry count (8), avc1 header (8) + visual sample entry fields (78).
  const avcC = readBoxes(stsd, 8 + 8 + 78, stsd.readUInt32BE(8) + 8).find((box) => box.type === 'avcC');
  if (!avcC) throw new Error('missing avcC');
  const data = avcC.data;
  expect(data[4] & 0x03).toBe(3); // 4-byte NAL length prefixes
  expect(data[5] & 0x1f).toBe(1); // one SPS
  const spsLength = data.readUInt16BE(6);
  const sps = data.subarray(8, 8 + spsLength);
  expect(data[8 + spsLength]).toBe(1); // one PPS
  const pps = data.subarray(11 + spsLength, 11 + spsLength + data.readUInt16BE(9 + spsLength));
  return { profile: data[1], sps, pps };
}

function readSamples(file: Buffer, boxes: Box[]): Buffer[] {
  const stsz = findBox(boxes, 'moov/trak/mdia/minf/stbl/stsz').data;
  let offset = findBox(boxes, 'moov/trak/mdia/minf/stbl/stco').data.readUInt32BE(8);
  return Array.from({ length: stsz.readUInt32BE(8) }, (_, i) => {
    const sample = file.subarray(offset, offset + stsz.readUInt32BE(12 + 4 * i));
    offset += sample.length;
    expect(sample.readUInt32BE(0) + 4).toBe(sample.length); // exactly one length-prefixed NAL unit
    return sample;
  });
}

/** Decodes the geometry fields of a Baseline SPS NAL unit (no emulation bytes in these fields). */
function spsFrameSize(sps: Buffer): { width: number; height: number } {
  let bit = 8 * 4; // NAL header, profile_idc, constraint flags, level_idc
  const u = (count: number) => {
    let value = 0;
    for (let i = 0; i < count; i++, bit++) value = (value << 1) | ((sps[bit >> 3] >> (7 - (bit & 7))) & 1);
    return value;
  };
  const ue = () => {
    let zeros = 0;
    while (u(1) === 0) zeros++;
    return (1 << zeros) - 1 + u(zeros);
  };
  ue(); // seq_parameter_set_id
  const log2MaxFrameNumMinus4 = ue();
  expect(log2MaxFrameNumMinus4).toBeLessThanOrEqual(12);
  expect(ue()).toBe(2); // pic_order_cnt_type
  ue(); // max_num_ref_frames
  u(1); // gaps_in_frame_num_value_allowed_flag
  const widthInMbs = ue() + 1;
  const heightInMbs = ue() + 1;
  expect(u(1)).toBe(1); // frame_mbs_only_flag
  u(1); // direct_8x8_inference_flag
  const crop = u(1) ? [ue(), ue(), ue(), ue()] : [0, 0, 0, 0];
  return {
    width: widthInMbs * 16 - 2 * (crop[0] + crop[1]),
    height: heightInMbs * 16 - 2 * (crop[2] + crop[3]),
  };
}
