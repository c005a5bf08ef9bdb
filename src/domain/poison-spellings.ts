// What a JSON body needs to poison a prototype: a `__proto__` key, or a `constructor` key holding a
// `prototype` key. The app's parser (secure-json-parse) refuses both, spelled out or with letters
// escaped as `\u00XX`. A body that cannot hold either may be parsed with JSON.parse alone; any
// other body takes the app's parser. Two tests of "cannot", both erring towards the app's parser:
// - cannotPoison(text): none of `_proto`, `prototype` or `\u00` anywhere in the text (three
//   searches of the whole text: about 50 µs on a Claude Code-sized body);
// - PrototypeKeyWatch: shown each string and escape by JsonDepthScanner while the bytes arrive, it
//   compares only strings of exactly nine bytes and looks at `\u` escapes, so it adds next to
//   nothing to the pass every JSON body already gets.

/** Whether JSON text holds none of the spellings (searched anywhere in the text). */
export function cannotPoison(text: string): boolean {
  return text.indexOf('\\u00') < 0 && text.indexOf('_proto') < 0 && text.indexOf('prototype') < 0;
}

/** Both keys are nine letters long: `__proto__` and `prototype`. */
const KEY_LENGTH = 9;
const UNDERSCORE = 0x5f;
const LETTER_P = 0x70;
const DIGIT_ZERO = 0x30;

/**
 * Whether a body's strings include `__proto__` or `prototype` (as a key or a value: a value costs
 * only the app's parser), or a `\u00XX` escape, which could spell either. Fed by JsonDepthScanner.
 */
export class PrototypeKeyWatch {
  found = false;
  /** The last bytes before the current chunk (latin1, at most KEY_LENGTH): a key may have begun there. */
  private tail = '';
  private current: Buffer | undefined;

  /** The scanner moves on to the next chunk. */
  nextChunk(bytes: Buffer): void {
    const current = this.current;
    if (current !== undefined) {
      const last = current.toString('latin1', Math.max(0, current.length - KEY_LENGTH));
      this.tail = (this.tail + last).slice(-KEY_LENGTH);
    }
    this.current = bytes;
  }

  /**
   * A string ended: its content is bytes[from, to) of the current chunk, `from` negative when it
   * began in earlier ones.
   */
  stringEnded(bytes: Buffer, from: number, to: number): void {
    if (to - from !== KEY_LENGTH || this.found) return;
    let text: string;
    if (from >= 0) {
      const first = bytes[from];
      if (first !== UNDERSCORE && first !== LETTER_P) return;
      text = bytes.toString('latin1', from, to);
    } else text = this.tail.slice(this.tail.length + from) + bytes.toString('latin1', 0, to);
    if (text === '__proto__' || text === 'prototype') this.found = true;
  }

  /** `\u` at bytes[at] (the `u`): found when `00` follows, or when the chunk ends before it shows. */
  unicodeEscape(bytes: Buffer, at: number): void {
    if (at + 2 >= bytes.length || (bytes[at + 1] === DIGIT_ZERO && bytes[at + 2] === DIGIT_ZERO))
      this.found = true;
  }
}
