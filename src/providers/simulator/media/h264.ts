import type { RgbImage } from './raster.js';

/**
 * Minimal H.264 (Constrained Baseline) encoder that never transforms or predicts pixels: the first
 * frame is an IDR picture whose macroblocks are all I_PCM (raw samples), and every later frame is a
 * P picture that skips macroblocks identical to the previous frame and sends the rest as I_PCM.
 * Skipped macroblocks copy the reference exactly (every motion vector is zero, deblocking is off),
 * so output is lossless apart from RGB->YUV 4:2:0, and static backgrounds cost almost nothing.
 */
export type H264Stream = {
  /** NAL units without start codes or length prefixes (the container adds framing). */
  sps: Buffer;
  pps: Buffer;
  pictures: { nal: Buffer; keyframe: boolean }[];
};

const PROFILE_BASELINE = 66;
/** constraint_set0 + constraint_set1: Constrained Baseline, accepted by every decoder. */
const CONSTRAINT_FLAGS = 0xc0;
const LOG2_MAX_FRAME_NUM = 8;
const SLICE_TYPE_P_ALL = 5;
const SLICE_TYPE_I_ALL = 7;
const MB_TYPE_I_PCM_IN_I_SLICE = 25;
/** Five inter types come before the intra ones in P slices. */
const MB_TYPE_I_PCM_IN_P_SLICE = 30;
const NAL_SLICE = 1;
const NAL_IDR_SLICE = 5;
const NAL_SPS = 7;
const NAL_PPS = 8;
/** Lowest levels whose max frame size (in macroblocks) fits; at least 3.0 so the CPB holds an I_PCM frame. */
const LEVELS_BY_MAX_FRAME_MBS: readonly [number, number][] = [
  [1620, 30],
  [3600, 31],
  [5120, 32],
  [8192, 40],
  [22080, 50],
];

export function encodeH264(frames: readonly RgbImage[]): H264Stream {
  if (frames.length === 0) throw new RangeError('at least one frame is required');
  const { width, height } = frames[0];
  if (width % 2 !== 0 || height % 2 !== 0) throw new RangeError('frame sides must be even for 4:2:0 video');
  const layout = macroblockLayout(width, height);
  let previous: PcmPicture | undefined;
  const pictures = frames.map((frame, index) => {
    if (frame.width !== width || frame.height !== height) {
      throw new RangeError('all frames must share one size');
    }
    const current = toPcmPicture(frame, layout);
    const nal = previous
      ? nalUnit(2, NAL_SLICE, predictedPicture(current, previous, layout, index))
      : nalUnit(3, NAL_IDR_SLICE, idrPicture(current, layout));
    previous = current;
    return { nal, keyframe: index === 0 };
  });
  return {
    sps: nalUnit(3, NAL_SPS, sequenceParameterSet(width, height, layout)),
    pps: nalUnit(3, NAL_PPS, pictureParameterSet()),
    pictures,
  };
}

type MacroblockLayout = { columns: number; rows: number; codedWidth: number; codedHeight: number };

function macroblockLayout(width: number, height: number): MacroblockLayout {
  const columns = Math.ceil(width / 16);
  const rows = Math.ceil(height / 16);
  return { columns, rows, codedWidth: columns * 16, codedHeight: rows * 16 };
}

function sequenceParameterSet(width: number, height: number, layout: MacroblockLayout): Buffer {
  const bits = new BitWriter();
  bits.u(8, PROFILE_BASELINE);
  bits.u(8, CONSTRAINT_FLAGS);
  bits.u(8, levelFor(layout.columns * layout.rows));
  bits.ue(0); // seq_parameter_set_id
  bits.ue(LOG2_MAX_FRAME_NUM - 4);
  bits.ue(2); // pic_order_cnt_type 2: output order = decode order, nothing to signal per slice
  bits.ue(1); // max_num_ref_frames
  bits.u(1, 0); // gaps_in_frame_num_value_allowed_flag
  bits.ue(layout.columns - 1);
  bits.ue(layout.rows - 1);
  bits.u(1, 1); // frame_mbs_only_flag
  bits.u(1, 1); // direct_8x8_inference_flag
  // Crop the macroblock padding away; offsets count chroma samples (2 luma pixels) for 4:2:0.
  const cropRight = (layout.codedWidth - width) / 2;
  const cropBottom = (layout.codedHeight - height) / 2;
  const cropped = cropRight > 0 || cropBottom > 0;
  bits.u(1, cropped ? 1 : 0);
  if (cropped) {
    bits.ue(0);
    bits.ue(cropRight);
    bits.ue(0);
    bits.ue(cropBottom);
  }
  bits.u(1, 0); // vui_parameters_present_flag: the container carries timing
  bits.trailingBits();
  return bits.toBuffer();
}

function pictureParameterSet(): Buffer {
  const bits = new BitWriter();
  bits.ue(0); // pic_parameter_set_id
  bits.ue(0); // seq_parameter_set_id
  bits.u(1, 0); // entropy_coding_mode_flag: CAVLC
  bits.u(1, 0); // bottom_field_pic_order_in_frame_present_flag
  bits.ue(0); // num_slice_groups_minus1
  bits.ue(0); // num_ref_idx_l0_default_active_minus1
  bits.ue(0); // num_ref_idx_l1_default_active_minus1
  bits.u(1, 0); // weighted_pred_flag
  bits.u(2, 0); // weighted_bipred_idc
  bits.se(0); // pic_init_qp_minus26
  bits.se(0); // pic_init_qs_minus26
  bits.se(0); // chroma_qp_index_offset
  bits.u(1, 1); // deblocking_filter_control_present_flag: lets slices switch the filter off
  bits.u(1, 0); // constrained_intra_pred_flag
  bits.u(1, 0); // redundant_pic_cnt_present_flag
  bits.trailingBits();
  return bits.toBuffer();
}

function idrPicture(picture: PcmPicture, layout: MacroblockLayout): Buffer {
  const bits = new BitWriter(layout.columns * layout.rows * (MACROBLOCK_BYTES + 2));
  bits.ue(0); // first_mb_in_slice
  bits.ue(SLICE_TYPE_I_ALL);
  bits.ue(0); // pic_parameter_set_id
  bits.u(LOG2_MAX_FRAME_NUM, 0); // frame_num
  bits.ue(0); // idr_pic_id
  bits.u(1, 0); // no_output_of_prior_pics_flag
  bits.u(1, 0); // long_term_reference_flag
  bits.se(0); // slice_qp_delta
  bits.ue(1); // disable_deblocking_filter_idc: keep PCM samples exact
  for (let mb = 0; mb < layout.columns * layout.rows; mb++) {
    bits.ue(MB_TYPE_I_PCM_IN_I_SLICE);
    writePcmMacroblock(bits, picture, mb);
  }
  bits.trailingBits();
  return bits.toBuffer();
}

function predictedPicture(
  picture: PcmPicture,
  reference: PcmPicture,
  layout: MacroblockLayout,
  index: number,
): Buffer {
  const total = layout.columns * layout.rows;
  const changed: number[] = [];
  for (let mb = 0; mb < total; mb++) {
    if (!macroblockEquals(picture, reference, mb)) changed.push(mb);
  }
  const bits = new BitWriter(changed.length * (MACROBLOCK_BYTES + 8) + 64);
  bits.ue(0); // first_mb_in_slice
  bits.ue(SLICE_TYPE_P_ALL);
  bits.ue(0); // pic_parameter_set_id
  bits.u(LOG2_MAX_FRAME_NUM, index % (1 << LOG2_MAX_FRAME_NUM)); // frame_num: every picture is a reference
  bits.u(1, 0); // num_ref_idx_active_override_flag
  bits.u(1, 0); // ref_pic_list_modification_flag_l0
  bits.u(1, 0); // adaptive_ref_pic_marking_mode_flag: sliding window
  bits.se(0); // slice_qp_delta
  bits.ue(1); // disable_deblocking_filter_idc
  let nextUnwritten = 0;
  for (const mb of changed) {
    bits.ue(mb - nextUnwritten); // mb_skip_run before this macroblock
    bits.ue(MB_TYPE_I_PCM_IN_P_SLICE);
    writePcmMacroblock(bits, picture, mb);
    nextUnwritten = mb + 1;
  }
  if (nextUnwritten < total) bits.ue(total - nextUnwritten);
  bits.trailingBits();
  return bits.toBuffer();
}

/** I_PCM payloads of every macroblock, back to back in raster order, MACROBLOCK_BYTES each. */
type PcmPicture = Uint8Array;
/** 16x16 luma, then 8x8 Cb and 8x8 Cr (4:2:0), 8 bits per sample. */
const MACROBLOCK_BYTES = 256 + 64 + 64;

/**
 * RGB to BT.601 limited-range YUV 4:2:0, written straight into bitstream order. Limited range keeps
 * samples away from 0, which early decoders reject in I_PCM. Pixels past the frame edge (macroblock
 * padding) repeat the edge and are cropped away by the SPS.
 */
function toPcmPicture(image: RgbImage, layout: MacroblockLayout): PcmPicture {
  const out = new Uint8Array(layout.columns * layout.rows * MACROBLOCK_BYTES);
  const px = image.pixels;
  const lastX = image.width - 1;
  const lastY = image.height - 1;
  const stride = image.width * 3;
  let n = 0;
  for (let mbY = 0; mbY < layout.rows; mbY++) {
    for (let mbX = 0; mbX < layout.columns; mbX++) {
      for (let row = 0; row < 16; row++) {
        const rowStart = Math.min(mbY * 16 + row, lastY) * stride;
        for (let column = 0; column < 16; column++) {
          const o = rowStart + Math.min(mbX * 16 + column, lastX) * 3;
          out[n++] = ((66 * px[o] + 129 * px[o + 1] + 25 * px[o + 2] + 128) >> 8) + 16;
        }
      }
      const cbStart = n;
      for (let row = 0; row < 8; row++) {
        const upper = Math.min(mbY * 16 + 2 * row, lastY) * stride;
        const lower = Math.min(mbY * 16 + 2 * row + 1, lastY) * stride;
        for (let column = 0; column < 8; column++) {
          const left = Math.min(mbX * 16 + 2 * column, lastX) * 3;
          const right = Math.min(mbX * 16 + 2 * column + 1, lastX) * 3;
          // Sums of the 2x2 block; >> 10 instead of >> 8 also averages them.
          const r = px[upper + left] + px[upper + right] + px[lower + left] + px[lower + right];
          const g =
            px[upper + left + 1] + px[upper + right + 1] + px[lower + left + 1] + px[lower + right + 1];
          const b =
            px[upper + left + 2] + px[upper + right + 2] + px[lower + left + 2] + px[lower + right + 2];
          out[n] = ((-38 * r - 74 * g + 112 * b + 512) >> 10) + 128;
          out[n + 64] = ((112 * r - 94 * g - 18 * b + 512) >> 10) + 128;
          n++;
        }
      }
      n = cbStart + 128;
    }
  }
  return out;
}

function writePcmMacroblock(bits: BitWriter, picture: PcmPicture, mb: number): void {
  bits.alignWithZeros(); // pcm_alignment_zero_bit
  bits.bytes(picture.subarray(mb * MACROBLOCK_BYTES, (mb + 1) * MACROBLOCK_BYTES));
}

function macroblockEquals(a: PcmPicture, b: PcmPicture, mb: number): boolean {
  for (let i = mb * MACROBLOCK_BYTES; i < (mb + 1) * MACROBLOCK_BYTES; i++) {
    if (a[i] !== b[i]) return false;
  }
  return true;
}

function levelFor(frameMacroblocks: number): number {
  const level = LEVELS_BY_MAX_FRAME_MBS.find(([maxMbs]) => frameMacroblocks <= maxMbs);
  if (!level) throw new RangeError(`frame of ${frameMacroblocks} macroblocks is too large`);
  return level[1];
}

/** NAL header plus the payload with emulation prevention (no 00 00 0x sequences with x <= 3). */
function nalUnit(refIdc: number, type: number, rbsp: Buffer): Buffer {
  const out = Buffer.alloc(1 + rbsp.length + Math.ceil(rbsp.length / 2));
  out[0] = (refIdc << 5) | type;
  let length = 1;
  let zeros = 0;
  for (let i = 0; i < rbsp.length; i++) {
    const byte = rbsp[i];
    if (zeros >= 2 && byte <= 3) {
      out[length++] = 3;
      zeros = 0;
    }
    out[length++] = byte;
    zeros = byte === 0 ? zeros + 1 : 0;
  }
  return out.subarray(0, length);
}

/** MSB-first bit writer with Exp-Golomb codes, as used by H.264 syntax. */
class BitWriter {
  private buffer: Buffer;
  private length = 0;
  private pending = 0;
  private pendingBits = 0;

  constructor(initialCapacity = 64) {
    this.buffer = Buffer.alloc(initialCapacity);
  }

  u(count: number, value: number): void {
    for (let i = count - 1; i >= 0; i--) {
      this.pending = (this.pending << 1) | ((value >>> i) & 1);
      if (++this.pendingBits === 8) {
        this.pushByte(this.pending);
        this.pending = 0;
        this.pendingBits = 0;
      }
    }
  }

  ue(value: number): void {
    const coded = value + 1;
    const length = 32 - Math.clz32(coded);
    this.u(length - 1, 0);
    this.u(length, coded);
  }

  se(value: number): void {
    this.ue(value > 0 ? 2 * value - 1 : -2 * value);
  }

  alignWithZeros(): void {
    while (this.pendingBits !== 0) this.u(1, 0);
  }

  /** Raw bytes; only valid on a byte boundary. */
  bytes(data: Uint8Array): void {
    if (this.pendingBits !== 0) throw new Error('bytes() needs a byte-aligned writer');
    this.ensureCapacity(data.length);
    this.buffer.set(data, this.length);
    this.length += data.length;
  }

  trailingBits(): void {
    this.u(1, 1); // rbsp_stop_one_bit
    this.alignWithZeros();
  }

  toBuffer(): Buffer {
    return this.buffer.subarray(0, this.length);
  }

  private pushByte(byte: number): void {
    this.ensureCapacity(1);
    this.buffer[this.length++] = byte;
  }

  private ensureCapacity(extra: number): void {
    if (this.length + extra <= this.buffer.length) return;
    const grown = Buffer.alloc(Math.max(this.buffer.length * 2, this.length + extra));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }
}
