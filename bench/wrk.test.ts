// The wrk driver: its Lua script sends what a job asks (method, headers, unique bodies, a cycle of
// paths), and its summary and CPU are read back. Not timed: the run only checks what arrived.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { parseChildTimes, parseWrkOutput, runWrk, wrkAvailable } from './wrk.js';

describe('wrk output', () => {
  it('reads the summary line and the CPU of the child from `times`', () => {
    const output = [
      'Running 1s test @ http://127.0.0.1:1/x',
      'WRKJSON {"requests":1200,"duration_us":2000000,"connect":0,"read":1,"write":0,"status":200,"timeout":3,"p50_us":850.0,"p99_us":4200.5}',
      '0m0.002s 0m0.001s',
      '0m0.600s 0m0.400s',
    ].join('\n');
    const cpu = parseChildTimes(output);
    expect(cpu).toBeCloseTo(1.0);
    const stats = parseWrkOutput(output, 123, cpu);
    expect(stats).toMatchObject({
      ok: 1000,
      non2xx: 200,
      errors: 1,
      timeouts: 3,
      requestsPerSec: 500,
      p50Ms: 0.85,
      p99Ms: 4.2005,
      durationSec: 2,
      startedAtMs: 123,
      generator: { tool: 'wrk, 2 threads', cpuPct: 50 },
    });
  });

  it('says so when wrk printed no summary', () => {
    expect(() => parseWrkOutput('unable to connect', 0)).toThrow(/no summary/);
  });
});

describe.skipIf(!wrkAvailable())('wrk driving a server', () => {
  it('sends the method, headers and a unique body per request, cycling through the paths', async () => {
    const seen: { method?: string; url?: string; auth?: string; body: string }[] = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, auth: req.headers.authorization, body });
        res.writeHead(req.url === '/b' ? 500 : 200);
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const stats = await runWrk({
        origin: `http://127.0.0.1:${port}`,
        method: 'POST',
        path: '/a',
        paths: ['/a', '/b'],
        headers: { authorization: 'Bearer x]]y', 'content-type': 'application/json' },
        body: '{"prompt":"p [<id>]"}',
        uniqueBodies: true,
        connections: 2,
        durationSec: 1,
      });
      expect(seen.length).toBeGreaterThan(10);
      expect(new Set(seen.map((s) => s.method))).toEqual(new Set(['POST']));
      expect(new Set(seen.map((s) => s.url))).toEqual(new Set(['/a', '/b']));
      expect(new Set(seen.map((s) => s.auth))).toEqual(new Set(['Bearer x]]y']));
      expect(new Set(seen.map((s) => s.body)).size).toBe(seen.length);
      expect(seen.every((s) => /^\{"prompt":"p [0-9a-f]+-\d+-\d+"\}$/.test(s.body))).toBe(true);
      // The 500s of /b are counted as failed, not as throughput.
      expect(stats.non2xx).toBeGreaterThan(0);
      expect(stats.ok + stats.non2xx).toBeGreaterThanOrEqual(seen.length - 4);
      expect(stats.generator?.cpuPct).toBeGreaterThan(0);
    } finally {
      server.close();
    }
  });
});
