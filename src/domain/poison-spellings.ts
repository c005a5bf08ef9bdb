// What a JSON body needs to poison a prototype: a `__proto__` key, or `constructor.prototype`, each
// spelled out or with an escaped ASCII letter (`\u00XX`). A body with none of the three spellings
// cannot do it, and may be parsed with JSON.parse alone; any other body takes the app's checking
// parser. Searched here in the bytes as they arrive, chunk by chunk, so that the search is done when
// the last byte is.

const SPELLINGS = ['\\u00', '_proto', 'prototype'].map((spelling) => Buffer.from(spelling, 'latin1'));
/** One byte short of the longest spelling: enough to see one that straddles two chunks. */
const SEAM = 8;

const holdsSpelling = (bytes: Buffer) => SPELLINGS.some((spelling) => bytes.indexOf(spelling) >= 0);

/** Whether JSON text holds none of the spellings (the same answer as PoisonSpellings on its bytes). */
export function cannotPoison(text: string): boolean {
  return text.indexOf('\\u00') < 0 && text.indexOf('_proto') < 0 && text.indexOf('prototype') < 0;
}

export class PoisonSpellings {
  /** Whether any of the spellings has been seen; once true, later chunks are not searched. */
  found = false;
  /** The last bytes pushed (at most SEAM of them). */
  private tail = Buffer.alloc(0);

  push(chunk: Buffer): void {
    if (this.found) return;
    if (this.tail.length > 0 && holdsSpelling(Buffer.concat([this.tail, chunk.subarray(0, SEAM)]))) {
      this.found = true;
      return;
    }
    if (holdsSpelling(chunk)) {
      this.found = true;
      return;
    }
    this.tail =
      chunk.length >= SEAM
        ? Buffer.from(chunk.subarray(chunk.length - SEAM))
        : Buffer.concat([this.tail, chunk]).subarray(-SEAM);
  }
}
