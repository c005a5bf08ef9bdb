import { describe, expect, it } from 'vitest';
import { parseProcStatus, readProcMemory } from './rss.js';

const STATUS = `Name:\tnode
VmPeak:\t 1234567 kB
VmHWM:\t  204800 kB
VmRSS:\t  153600 kB
Threads:\t11
`;

describe('parseProcStatus', () => {
  it('reads the peak (VmHWM) and current (VmRSS) resident set in kB', () => {
    expect(parseProcStatus(STATUS)).toEqual({ peakRssKb: 204800, rssKb: 153600 });
  });

  it('gives null for fields a kernel does not report', () => {
    expect(parseProcStatus('Name:\tnode\n')).toEqual({ peakRssKb: null, rssKb: null });
  });
});

describe('readProcMemory', () => {
  it.runIf(process.platform === 'linux')('reads this very process on Linux', () => {
    const memory = readProcMemory(process.pid);
    expect(memory?.rssKb).toBeGreaterThan(0);
    expect(memory!.peakRssKb!).toBeGreaterThanOrEqual(memory!.rssKb!);
  });

  it('gives null for a process that does not exist', () => {
    expect(readProcMemory(2 ** 30)).toBeNull();
  });
});
