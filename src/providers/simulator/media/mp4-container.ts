import type { H264Stream } from './h264.js';

/**
 * ISO BMFF (MP4) muxer for one H.264 track: ftyp, then moov before mdat ("fast start") so players
 * can begin without seeking, and all samples in a single chunk. Timestamps are zero, keeping the
 * output deterministic.
 */
export function muxMp4(stream: H264Stream, video: { width: number; height: number; fps: number }): Buffer {
  const samples = stream.pictures.map(({ nal }) => Buffer.concat([u32(nal.length), nal]));
  const ftyp = box('ftyp', ascii('isom'), u32(0x200), ascii('isomiso2avc1mp41'));
  // stco needs the absolute mdat offset, which depends on moov's size; moov's size does not
  // depend on the offset value, so measure once and build again.
  const moovFor = (mdatPayloadOffset: number) => movie(stream, samples, video, mdatPayloadOffset);
  const mdatPayloadOffset = ftyp.length + moovFor(0).length + 8;
  const mdat = box('mdat', ...samples);
  return Buffer.concat([ftyp, moovFor(mdatPayloadOffset), mdat]);
}

const MOVIE_TIMESCALE = 1000;
const MEDIA_TIMESCALE = 90000;
const UNITY_MATRIX = u32(0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000);

function movie(
  stream: H264Stream,
  samples: Buffer[],
  video: { width: number; height: number; fps: number },
  mdatPayloadOffset: number,
): Buffer {
  const sampleDelta = Math.round(MEDIA_TIMESCALE / video.fps);
  const mediaDuration = sampleDelta * samples.length;
  const movieDuration = Math.round((mediaDuration * MOVIE_TIMESCALE) / MEDIA_TIMESCALE);
  const mvhd = fullBox(
    'mvhd',
    0,
    0,
    u32(0, 0, MOVIE_TIMESCALE, movieDuration, 0x00010000), // times, timescale, duration, rate 1.0
    u16(0x0100, 0), // volume 1.0, reserved
    u32(0, 0),
    UNITY_MATRIX,
    u32(0, 0, 0, 0, 0, 0), // pre_defined
    u32(2), // next_track_ID
  );
  const tkhd = fullBox(
    'tkhd',
    0,
    0x3, // track enabled, in movie
    u32(0, 0, 1, 0, movieDuration), // times, track_ID 1, reserved, duration
    u32(0, 0),
    u16(0, 0, 0, 0), // layer, alternate_group, volume (0 for video), reserved
    UNITY_MATRIX,
    u32(video.width * 0x10000, video.height * 0x10000), // 16.16 fixed point
  );
  const mdhd = fullBox('mdhd', 0, 0, u32(0, 0, MEDIA_TIMESCALE, mediaDuration), u16(0x55c4, 0)); // language "und"
  const hdlr = fullBox('hdlr', 0, 0, u32(0), ascii('vide'), u32(0, 0, 0), ascii('VideoHandler\0'));
  const vmhd = fullBox('vmhd', 0, 1, u16(0, 0, 0, 0));
  const dinf = box('dinf', fullBox('dref', 0, 0, u32(1), fullBox('url ', 0, 1)));
  const stbl = box(
    'stbl',
    fullBox('stsd', 0, 0, u32(1), sampleEntry(stream, video)),
    fullBox('stts', 0, 0, u32(1, samples.length, sampleDelta)),
    fullBox('stss', 0, 0, u32(1, 1)), // only the first picture is a keyframe (IDR)
    fullBox('stsc', 0, 0, u32(1, 1, samples.length, 1)),
    fullBox('stsz', 0, 0, u32(0, samples.length), u32(...samples.map((sample) => sample.length))),
    fullBox('stco', 0, 0, u32(1, mdatPayloadOffset)),
  );
  const minf = box('minf', vmhd, dinf, stbl);
  return box('moov', mvhd, box('trak', tkhd, box('mdia', mdhd, hdlr, minf)));
}

function sampleEntry(stream: H264Stream, video: { width: number; height: number }): Buffer {
  const avcC = box(
    'avcC',
    // version 1, then profile, compatibility flags and level copied from the SPS.
    Buffer.from([1, stream.sps[1], stream.sps[2], stream.sps[3]]),
    Buffer.from([0xff, 0xe1]), // 4-byte NAL lengths; one SPS
    u16(stream.sps.length),
    stream.sps,
    Buffer.from([1]), // one PPS
    u16(stream.pps.length),
    stream.pps,
  );
  return box(
    'avc1',
    Buffer.alloc(6), // reserved
    u16(1), // data_reference_index
    Buffer.alloc(16), // pre_defined and reserved
    u16(video.width, video.height),
    u32(0x00480000, 0x00480000, 0), // 72 dpi, reserved
    u16(1), // frame_count
    Buffer.alloc(32), // compressorname
    u16(0x0018, 0xffff), // depth, pre_defined -1
    avcC,
  );
}

function box(type: string, ...payload: Buffer[]): Buffer {
  const body = Buffer.concat(payload);
  return Buffer.concat([u32(8 + body.length), ascii(type), body]);
}

function fullBox(type: string, version: number, flags: number, ...payload: Buffer[]): Buffer {
  return box(type, u32(((version & 0xff) << 24) | (flags & 0xffffff)), ...payload);
}

function u32(...values: number[]): Buffer {
  const out = Buffer.alloc(4 * values.length);
  values.forEach((value, index) => {
    out.writeUInt32BE(value >>> 0, index * 4);
  });
  return out;
}

function u16(...values: number[]): Buffer {
  const out = Buffer.alloc(2 * values.length);
  values.forEach((value, index) => {
    out.writeUInt16BE(value, index * 2);
  });
  return out;
}

function ascii(text: string): Buffer {
  return Buffer.from(text, 'latin1');
}
