import { describe, expect, it } from 'vitest';
import { type CpuProfile, isMainThreadProfile, moduleOf, summarizeProfile } from './profile.js';

describe('moduleOf', () => {
  it('names packages, scoped packages, src directories and internals', () => {
    expect(moduleOf('file:///app/node_modules/kysely/dist/esm/x.js', 'f', '/app')).toBe('kysely');
    expect(moduleOf('file:///app/node_modules/@fastify/swagger/index.js', 'f', '/app')).toBe(
      '@fastify/swagger',
    );
    expect(moduleOf('file:///app/src/storage/db.ts', 'f', '/app')).toBe('src/storage');
    expect(moduleOf('node:internal/streams/x', 'f')).toBe('node:internal');
    expect(moduleOf('node:net', 'f')).toBe('node:net');
    expect(moduleOf('', '(garbage collector)')).toBe('(garbage collector)');
    expect(moduleOf('', 'writev')).toBe('(native)');
  });
});

describe('summarizeProfile', () => {
  const node = (id: number, functionName: string, url: string, lineNumber = 0) => ({
    id,
    callFrame: { functionName, url, lineNumber },
  });
  const profile: CpuProfile = {
    nodes: [
      node(1, '(idle)', ''),
      node(2, 'executeQuery', 'file:///app/node_modules/kysely/driver.js', 59),
      node(3, 'handler', 'file:///app/src/http/routes/x.ts', 9),
    ],
    samples: [1, 2, 2, 3, 1],
    timeDeltas: [5000, 3000, 3000, 2000, 7000],
  };

  it('sums self time per function and per module, leaving idle time out', () => {
    const summary = summarizeProfile(profile, '/app');
    expect(summary.totalMs).toBe(8);
    expect(summary.modules).toEqual([
      { name: 'kysely', ms: 6, share: 0.75 },
      { name: 'src/http', ms: 2, share: 0.25 },
    ]);
    expect(summary.functions[0]).toEqual({
      name: 'executeQuery node_modules/kysely/driver.js:60',
      ms: 6,
      share: 0.75,
    });
  });

  it('leaves start-up out: samples within the first skipMs do not count', () => {
    // Elapsed after each sample: 5, 8, 11, 13, 20 ms; skipping 8 ms drops the first two.
    const summary = summarizeProfile(profile, '/app', 15, 8);
    expect(summary.totalMs).toBe(5);
    expect(summary.modules).toEqual([
      { name: 'kysely', ms: 3, share: 0.6 },
      { name: 'src/http', ms: 2, share: 0.4 },
    ]);
  });
});

describe('isMainThreadProfile', () => {
  it('keeps thread 0 and leaves the loader thread out', () => {
    expect(isMainThreadProfile('CPU.20261121.081139.16222.0.001.cpuprofile')).toBe(true);
    expect(isMainThreadProfile('CPU.20261121.081139.16222.1.002.cpuprofile')).toBe(false);
    expect(isMainThreadProfile('summary.md')).toBe(false);
  });
});
