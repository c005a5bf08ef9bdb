// A process's (or thread's) CPU time from /proc/<pid>/stat (Linux).

/** USER_HZ: the unit of the CPU times in /proc/<pid>/stat and /proc/stat. */
export const CLOCK_TICK_MS = 10;

/** The command name and utime + stime in ms, from the text of a /proc/<pid>/stat file. */
export function parseProcStat(text: string): { name: string; cpuMs: number } {
  // The command name is in brackets and may contain spaces and brackets: split at the last ')'.
  const close = text.lastIndexOf(')');
  const fields = text.slice(close + 2).split(' ');
  // After the name, utime and stime are the 12th and 13th fields.
  return {
    name: text.slice(text.indexOf('(') + 1, close),
    cpuMs: (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_MS,
  };
}
