// The Server-Timing header a text answer carries (http/server-timing.ts), checked against an
// upstream known to take at least `upstreamAtLeastMs`: that time is the upstream's share, and
// gengate's own share is what is left, well under it.
import { expect } from 'vitest';
import { readServerTiming } from '../http/server-timing.js';

export function expectServerTiming(headers: Headers, upstreamAtLeastMs: number): void {
  const value = headers.get('server-timing') ?? '';
  expect(value).toMatch(/^gateway;dur=\d+\.\d{3}, upstream;dur=\d+\.\d{3}$/);
  const { gatewayMs, upstreamMs } = readServerTiming(value);
  expect(upstreamMs).toBeGreaterThanOrEqual(upstreamAtLeastMs);
  expect(gatewayMs).toBeGreaterThanOrEqual(0);
  expect(gatewayMs).toBeLessThan(upstreamMs as number);
}
