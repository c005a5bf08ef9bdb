import { createHash } from 'node:crypto';
import { CELL_HEIGHT, CELL_WIDTH, GLYPH_COLUMNS, GLYPH_ROWS, glyphFor } from './font.js';

/** 8-bit RGB, row-major, no padding. */
export type RgbImage = { width: number; height: number; pixels: Uint8Array };

type Rgb = readonly [number, number, number];

/** Everything visual that follows from (prompt, seed); pure data so renders are deterministic. */
export type Scene = {
  prompt: string;
  seed: number;
  gradientFrom: Rgb;
  gradientTo: Rgb;
  gradientAngle: number;
  pattern: 'rings' | 'stripes' | 'waves';
  patternFrequency: number;
  patternAngle: number;
  patternCenter: { x: number; y: number };
  orbColor: Rgb;
  orbPhase: number;
};

const PATTERNS = ['rings', 'stripes', 'waves'] as const;
const TEXT_COLOR: Rgb = [245, 245, 245];
const LABEL_SHADE = 0.35;

export function createScene(prompt: string, seed: number): Scene {
  const hash = createHash('sha256').update(`${seed}\u0000${prompt}`).digest();
  const unit = (index: number) => hash.readUInt16BE(index) / 0x10000;
  const hue = unit(0) * 360;
  return {
    prompt,
    seed,
    gradientFrom: hsvToRgb(hue, 0.55 + unit(2) * 0.35, 0.75 + unit(4) * 0.2),
    gradientTo: hsvToRgb(hue + 90 + unit(6) * 180, 0.55 + unit(8) * 0.35, 0.45 + unit(10) * 0.3),
    gradientAngle: unit(12) * 2 * Math.PI,
    pattern: PATTERNS[hash[14] % PATTERNS.length],
    patternFrequency: 2 + unit(15) * 6,
    patternAngle: unit(17) * Math.PI,
    patternCenter: { x: 0.2 + unit(19) * 0.6, y: 0.2 + unit(21) * 0.6 },
    orbColor: hsvToRgb(hue + 180, 0.35 + unit(23) * 0.4, 1),
    orbPhase: unit(25),
  };
}

/**
 * The static part of every frame: gradient plus a low-contrast pattern. Hot (every simulator render
 * starts here), so everything that depends on one axis only is computed once per row or column,
 * and the inner loop writes a Uint8ClampedArray view (it clamps and rounds for us).
 */
export function paintBackdrop(scene: Scene, width: number, height: number): RgbImage {
  const image = createImage(width, height);
  const out = new Uint8ClampedArray(image.pixels.buffer, image.pixels.byteOffset, image.pixels.length);
  const cos = Math.cos(scene.gradientAngle);
  const sin = Math.sin(scene.gradientAngle);
  // Normalise the projection so the gradient spans exactly corner to corner.
  const corners = [0, cos, sin, cos + sin];
  const low = Math.min(...corners);
  const span = Math.max(...corners) - low || 1;
  const [r0, g0, b0] = scene.gradientFrom;
  const dr = scene.gradientTo[0] - r0;
  const dg = scene.gradientTo[1] - g0;
  const db = scene.gradientTo[2] - b0;
  const columnMix = new Float64Array(width);
  for (let x = 0; x < width; x++) columnMix[x] = ((x / width) * cos - low) / span;
  const pattern = patternRows(scene, width, height);
  const shades = new Float64Array(width);
  let offset = 0;
  for (let y = 0; y < height; y++) {
    const rowMix = ((y / height) * sin) / span;
    pattern(y, shades);
    for (let x = 0; x < width; x++) {
      const mix = columnMix[x] + rowMix;
      const shade = 0.84 + 0.16 * shades[x];
      out[offset] = (r0 + dr * mix) * shade;
      out[offset + 1] = (g0 + dg * mix) * shade;
      out[offset + 2] = (b0 + db * mix) * shade;
      offset += 3;
    }
  }
  return image;
}

/**
 * The scene's pattern (-1..1) row by row: `fill(y, row)` writes one value per column. Stripes and
 * waves are separable (sin(a + b) = sin a cos b + cos a sin b; a product of sines), so they need
 * no trigonometry per pixel; rings need one sqrt and one sin per pixel.
 */
function patternRows(scene: Scene, width: number, height: number): (y: number, row: Float64Array) => void {
  const turns = 2 * Math.PI * scene.patternFrequency;
  const aspect = height / width;
  const columns = (f: (u: number) => number) => Float64Array.from({ length: width }, (_, x) => f(x / width));
  const rowY = (y: number) => (y / height) * aspect;
  switch (scene.pattern) {
    case 'rings': {
      const dx2 = columns((u) => (u - scene.patternCenter.x) ** 2);
      const centerY = scene.patternCenter.y * aspect;
      return (y, row) => {
        const dy2 = (rowY(y) - centerY) ** 2;
        for (let x = 0; x < width; x++) row[x] = Math.sin(turns * Math.sqrt(dx2[x] + dy2));
      };
    }
    case 'stripes': {
      const along = Math.cos(scene.patternAngle);
      const across = Math.sin(scene.patternAngle);
      const sinU = columns((u) => Math.sin(turns * u * along));
      const cosU = columns((u) => Math.cos(turns * u * along));
      return (y, row) => {
        const phase = turns * rowY(y) * across;
        const sinV = Math.sin(phase);
        const cosV = Math.cos(phase);
        for (let x = 0; x < width; x++) row[x] = sinU[x] * cosV + cosU[x] * sinV;
      };
    }
    case 'waves': {
      const sinU = columns((u) => Math.sin(turns * u));
      return (y, row) => {
        const sinV = Math.sin(turns * rowY(y));
        for (let x = 0; x < width; x++) row[x] = sinU[x] * sinV;
      };
    }
  }
}

/**
 * One frame: the backdrop with an orb at `time` (0..1 walks one full orbit), the prompt caption,
 * the seed label and, for video, a progress bar so motion is obvious even on a still-looking scene.
 */
export function paintFrame(
  backdrop: RgbImage,
  scene: Scene,
  moment: { time: number; progress?: number },
): RgbImage {
  const image = { ...backdrop, pixels: backdrop.pixels.slice() };
  const { width, height } = image;
  const scale = textScaleFor(width, height);
  const angle = 2 * Math.PI * (moment.time + scene.orbPhase);
  paintOrb(
    image,
    width * (0.5 + 0.3 * Math.cos(angle)),
    height * (0.42 + 0.22 * Math.sin(angle)),
    Math.min(width, height) * 0.09,
    scene.orbColor,
  );
  if (moment.progress !== undefined) {
    fillRect(image, 0, 0, Math.round(width * moment.progress), 2 * scale, scene.orbColor);
  }
  paintLabel(image, [`seed ${scene.seed}`], 3 * scale, 4 * scale, scale);
  paintCaption(image, scene.prompt, scale);
  return image;
}

function createImage(width: number, height: number): RgbImage {
  return { width, height, pixels: new Uint8Array(width * height * 3) };
}

/** A shaded ball with an anti-aliased edge. */
function paintOrb(image: RgbImage, centerX: number, centerY: number, radius: number, color: Rgb): void {
  const top = Math.max(0, Math.floor(centerY - radius - 1));
  const bottom = Math.min(image.height, Math.ceil(centerY + radius + 1));
  const left = Math.max(0, Math.floor(centerX - radius - 1));
  const right = Math.min(image.width, Math.ceil(centerX + radius + 1));
  for (let y = top; y < bottom; y++) {
    for (let x = left; x < right; x++) {
      const distance = Math.hypot(x + 0.5 - centerX, y + 0.5 - centerY);
      const coverage = Math.min(1, Math.max(0, radius - distance + 0.5));
      if (coverage === 0) continue;
      const light = 1 - 0.45 * (distance / radius) ** 2;
      const offset = (y * image.width + x) * 3;
      for (let channel = 0; channel < 3; channel++) {
        const current = image.pixels[offset + channel];
        image.pixels[offset + channel] = clampByte(current + (color[channel] * light - current) * coverage);
      }
    }
  }
}

/** Prompt text in a darkened band along the bottom edge. */
function paintCaption(image: RgbImage, prompt: string, scale: number): void {
  const margin = 3 * scale;
  const maxChars = Math.floor((image.width - 2 * margin) / (CELL_WIDTH * scale));
  const maxLines = image.height > image.width ? 3 : 2;
  const lines = wrapText(prompt, maxChars, maxLines);
  if (lines.length === 0) return;
  const bandHeight = lines.length * CELL_HEIGHT * scale + 2 * margin;
  shadeRect(image, 0, image.height - bandHeight, image.width, bandHeight, LABEL_SHADE);
  drawLines(image, lines, margin, image.height - bandHeight + margin + scale, scale);
}

/** Text on a darkened box sized to fit it. */
function paintLabel(image: RgbImage, lines: string[], x: number, y: number, scale: number): void {
  const pad = scale * 2;
  const columns = Math.max(...lines.map((line) => [...line].length));
  shadeRect(
    image,
    x - pad,
    y - pad,
    columns * CELL_WIDTH * scale + 2 * pad - scale,
    lines.length * CELL_HEIGHT * scale + 2 * pad - scale,
    LABEL_SHADE,
  );
  drawLines(image, lines, x, y, scale);
}

function drawLines(image: RgbImage, lines: string[], x: number, y: number, scale: number): void {
  lines.forEach((line, row) => {
    let column = 0;
    for (const char of line) {
      drawGlyph(image, glyphFor(char), x + column * CELL_WIDTH * scale, y + row * CELL_HEIGHT * scale, scale);
      column++;
    }
  });
}

function drawGlyph(image: RgbImage, glyph: readonly number[], x: number, y: number, scale: number): void {
  for (let column = 0; column < GLYPH_COLUMNS; column++) {
    for (let row = 0; row < GLYPH_ROWS; row++) {
      if ((glyph[column] >> row) & 1)
        fillRect(image, x + column * scale, y + row * scale, scale, scale, TEXT_COLOR);
    }
  }
}

/**
 * Greedy word wrap by code points; words longer than a line are split, and text that does not fit
 * in `maxLines` ends with "...".
 */
export function wrapText(text: string, maxChars: number, maxLines: number): string[] {
  if (maxChars < 1 || maxLines < 1) return [];
  const words = text
    .split(/\s+/)
    .filter(Boolean)
    .flatMap((word) => chunk([...word], maxChars));
  const lines: string[][] = [];
  for (const word of words) {
    const line = lines.at(-1);
    if (line && line.length + 1 + word.length <= maxChars) line.push(' ', ...word);
    else lines.push([...word]);
  }
  if (lines.length > maxLines) {
    lines.length = maxLines;
    lines[maxLines - 1] = [...lines[maxLines - 1].slice(0, Math.max(0, maxChars - 3)), '.', '.', '.'];
  }
  return lines.map((line) => line.join(''));
}

function chunk<T>(items: T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
  return chunks;
}

/** Glyphs scale with the frame so captions stay legible from 176 px to 1000+ px frames. */
function textScaleFor(width: number, height: number): number {
  return Math.max(1, Math.floor(Math.sqrt(width * height) / 110));
}

/** Calls `visit` with the byte range of each row of the rectangle, clipped to the image. */
function forEachRectRow(
  image: RgbImage,
  x: number,
  y: number,
  w: number,
  h: number,
  visit: (start: number, end: number) => void,
): void {
  const left = Math.max(0, x);
  const right = Math.min(image.width, x + w);
  const bottom = Math.min(image.height, y + h);
  for (let row = Math.max(0, y); row < bottom; row++) {
    visit((row * image.width + left) * 3, (row * image.width + right) * 3);
  }
}

function fillRect(image: RgbImage, x: number, y: number, w: number, h: number, color: Rgb): void {
  const px = image.pixels;
  const [r, g, b] = color;
  forEachRectRow(image, x, y, w, h, (start, end) => {
    for (let offset = start; offset < end; offset += 3) {
      px[offset] = r;
      px[offset + 1] = g;
      px[offset + 2] = b;
    }
  });
}

function shadeRect(image: RgbImage, x: number, y: number, w: number, h: number, factor: number): void {
  const px = image.pixels;
  forEachRectRow(image, x, y, w, h, (start, end) => {
    for (let offset = start; offset < end; offset++) px[offset] = Math.round(px[offset] * factor);
  });
}

function hsvToRgb(hue: number, saturation: number, value: number): Rgb {
  const channel = (n: number) => {
    const k = (n + hue / 60) % 6;
    return clampByte(255 * (value - value * saturation * Math.max(0, Math.min(k, 4 - k, 1))));
  };
  return [channel(5), channel(3), channel(1)];
}

function clampByte(value: number): number {
  return value <= 0 ? 0 : value >= 255 ? 255 : Math.round(value);
}
