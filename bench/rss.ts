// Memory of a child process, from Linux's /proc/PID/status: VmHWM is the kernel's own peak
// resident set, so no sample can miss a short spike; VmRSS is the current one.
import { readFileSync } from 'node:fs';

export interface ProcMemory {
  rssKb: number | null;
  peakRssKb: number | null;
}

export function parseProcStatus(text: string): ProcMemory {
  const field = (name: string): number | null => {
    const match = new RegExp(`^${name}:\\s+(\\d+)\\s+kB`, 'm').exec(text);
    return match ? Number(match[1]) : null;
  };
  return { rssKb: field('VmRSS'), peakRssKb: field('VmHWM') };
}

/** Null where /proc does not exist (not Linux) or the process is gone. */
export function readProcMemory(pid: number): ProcMemory | null {
  try {
    return parseProcStatus(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return null;
  }
}

/** Samples VmRSS while work runs, as a cross-check of VmHWM. */
export function sampleRss(pid: number, everyMs = 100): { stop(): number | null } {
  let maxKb: number | null = null;
  const timer = setInterval(() => {
    const rss = readProcMemory(pid)?.rssKb ?? null;
    if (rss !== null && (maxKb === null || rss > maxKb)) maxKb = rss;
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return maxKb;
    },
  };
}
