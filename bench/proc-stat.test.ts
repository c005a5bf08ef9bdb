import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseProcStat } from './proc-stat.js';

describe('parseProcStat', () => {
  it('reads the name and utime + stime (in ms) after a name with spaces and brackets', () => {
    const fields = ['S', ...Array.from({ length: 10 }, (_, i) => String(i + 1)), '250', '40', '7', '8'];
    expect(parseProcStat(`4242 (my (odd) name) ${fields.join(' ')}`)).toEqual({
      name: 'my (odd) name',
      cpuMs: 2_900,
    });
  });

  it.skipIf(process.platform !== 'linux')('reads this process from /proc', () => {
    const { name, cpuMs } = parseProcStat(readFileSync('/proc/self/stat', 'utf8'));
    expect(name.length).toBeGreaterThan(0);
    expect(cpuMs).toBeGreaterThan(0);
  });
});
