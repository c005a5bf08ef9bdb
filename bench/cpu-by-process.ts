// Where a machine's CPU goes during a run, by process, from /proc (Linux): run it beside a bench, e.g.
//   node bin/run-ts.mjs bench/cpu-by-process.ts 75 10 & node bin/run-ts.mjs bench/run.ts --pg --only=pipeline
// It samples every process's user + system time once a second for `seconds` (75), then reports the
// busiest `window` seconds (10): the machine's split (user, system, softirq, idle) and each group of
// processes (gengate, postgres, the bench's own children…) in % of one core.
import { readdirSync, readFileSync } from 'node:fs';
import { CLOCK_TICK_MS, parseProcStat } from './proc-stat.js';

const seconds = Number(process.argv[2] ?? 75);
const window = Number(process.argv[3] ?? 10);

interface Snapshot {
  at: number;
  /** pid → [group, CPU ms so far] */
  processes: Map<string, [string, number]>;
  /** /proc/stat's first line in ms: user nice system idle iowait irq softirq steal */
  machine: number[];
}

function groupOf(commandLine: string, name: string): string {
  if (name === 'postgres' || commandLine.startsWith('postgres')) return 'postgres';
  if (commandLine.includes('bin/gengate')) return 'gengate';
  const bench = /bench\/([\w-]+)\.ts/.exec(commandLine);
  if (bench) return `bench ${bench[1]}`;
  return name;
}

function snapshot(): Snapshot {
  const processes = new Map<string, [string, number]>();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const { name, cpuMs } = parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      processes.set(pid, [groupOf(commandLine, name), cpuMs]);
    } catch {
      // The process ended between the listing and the read.
    }
  }
  const machine = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]
    .trim()
    .split(/\s+/)
    .slice(1, 9)
    .map((ticks) => Number(ticks) * CLOCK_TICK_MS);
  return { at: Date.now(), processes, machine };
}

const busy = (s: Snapshot) => s.machine[0] + s.machine[1] + s.machine[2] + s.machine[5] + s.machine[6];
const snapshots: Snapshot[] = [];
for (let i = 0; i <= seconds; i++) {
  snapshots.push(snapshot());
  await new Promise((resolve) => setTimeout(resolve, 1_000));
}
let start = 0;
for (let i = 0; i + window < snapshots.length; i++) {
  if (
    busy(snapshots[i + window]) - busy(snapshots[i]) >
    busy(snapshots[start + window]) - busy(snapshots[start])
  )
    start = i;
}
const [from, to] = [snapshots[start], snapshots[start + window]];
const percent = (ms: number) => (ms / (to.at - from.at)) * 100;
const names = ['user', 'nice', 'system', 'idle', 'iowait', 'irq', 'softirq', 'steal'];
console.log(`busiest ${window} s (from second ${start}), in % of one core:`);
console.log(
  names.map((name, i) => `${name} ${percent(to.machine[i] - from.machine[i]).toFixed(0)}%`).join(', '),
);
const groups = new Map<string, number>();
for (const [pid, [group, ms]] of to.processes) {
  const before = from.processes.get(pid)?.[1] ?? 0;
  groups.set(group, (groups.get(group) ?? 0) + ms - before);
}
for (const [group, ms] of [...groups].sort((a, b) => b[1] - a[1]).filter(([, t]) => percent(t) >= 0.5))
  console.log(`${percent(ms).toFixed(1).padStart(6)}%  ${group}`);
