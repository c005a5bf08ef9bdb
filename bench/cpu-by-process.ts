// Where a machine's CPU goes during a run, by process, from /proc (Linux): run it beside a bench, e.g.
//   node bin/run-ts.mjs bench/cpu-by-process.ts 75 10 & node bin/run-ts.mjs bench/run.ts --pg --only=pipeline
// It samples every process's user + system time once a second for `seconds` (75), then reports the
// busiest `window` seconds (10): the machine's split (user, system, softirq, idle) and each group of
// processes (gengate, postgres, the bench's own children…) in % of one core.
import { busyMs, type CpuSnapshot, cpuByGroup, cpuSnapshot } from './cpu-snapshot.js';

const seconds = Number(process.argv[2] ?? 75);
const window = Number(process.argv[3] ?? 10);

const snapshots: CpuSnapshot[] = [];
for (let i = 0; i <= seconds; i++) {
  snapshots.push(cpuSnapshot());
  await new Promise((resolve) => setTimeout(resolve, 1_000));
}
let start = 0;
for (let i = 0; i + window < snapshots.length; i++) {
  if (
    busyMs(snapshots[i + window]) - busyMs(snapshots[i]) >
    busyMs(snapshots[start + window]) - busyMs(snapshots[start])
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
const groups = cpuByGroup(from, to);
for (const [group, ms] of groups.filter(([, t]) => percent(t) >= 0.5))
  console.log(`${percent(ms).toFixed(1).padStart(6)}%  ${group}`);
