// The single-range subset of HTTP Range (RFC 9110 §14): "bytes=a-b", "bytes=a-", "bytes=-n".
// Multiple ranges and other units are ignored (the whole file is served, which the RFC allows).
import type { ByteRange } from '../objects/object-store.js';

export type RangeRequest = { kind: 'none' } | { kind: 'range'; range: ByteRange } | { kind: 'unsatisfiable' };

export function parseRange(header: string | undefined, size: number): RangeRequest {
  if (!header) return { kind: 'none' };
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match || (match[1] === '' && match[2] === '')) return { kind: 'none' };
  let start: number;
  let end: number;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
    if (match[2] !== '' && Number(match[2]) < start) return { kind: 'none' };
    if (start >= size) return { kind: 'unsatisfiable' };
  }
  return { kind: 'range', range: { start, end } };
}
