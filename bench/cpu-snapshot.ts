// The CPU time of every process on the machine at one moment, grouped (Linux, from /proc), and the
// difference between two such moments: where a run's CPU went, process group by process group.
// On a machine the load keeps busy, the CPU per unit of work is the throughput's other face (it
// moves with the VM's speed just as much), but its split shows which process the work costs.
import { readdirSync, readFileSync } from 'node:fs';
import { CLOCK_TICK_MS, parseProcStat } from './proc-stat.js';

export interface CpuSnapshot {
  at: number;
  /** pid → [group, CPU ms so far] */
  processes: Map<string, [string, number]>;
  /** /proc/stat's first line in ms: user nice system idle iowait irq softirq steal */
  machine: number[];
}

/** A process's group: PostgreSQL, gengate by role, the bench's own children by script, else its name. */
export function groupOf(commandLine: string, name: string): string {
  if (name === 'postgres' || commandLine.startsWith('postgres')) return 'postgres';
  if (commandLine.includes('bin/gengate')) {
    const role = /--role (\w+)/.exec(commandLine);
    return role ? `gengate ${role[1]}` : 'gengate';
  }
  const bench = /bench\/([\w-]+)\.ts/.exec(commandLine);
  if (bench) return `bench ${bench[1]}`;
  return name;
}

export function cpuSnapshot(): CpuSnapshot {
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

/** The machine's busy time in ms: user, nice, system, irq and softirq. */
export function busyMs(snapshot: CpuSnapshot): number {
  const [user, nice, system, , , irq, softirq] = snapshot.machine;
  return user + nice + system + irq + softirq;
}

/**
 * CPU ms each group spent between two snapshots, busiest first. A process that ended in between is
 * missing from `to` and its time is lost; one that started counts from zero.
 */
export function cpuByGroup(from: CpuSnapshot, to: CpuSnapshot): [string, number][] {
  return sumByName(
    [...to.processes].map(([pid, [group, ms]]) => {
      const before = from.processes.get(pid);
      // A pid reused by another process since `from` counts from zero.
      return [group, before && before[0] === group && before[1] <= ms ? ms - before[1] : ms];
    }),
  );
}

/** The ms of each name added up, largest first. */
function sumByName(entries: [string, number][]): [string, number][] {
  const sums = new Map<string, number>();
  for (const [name, ms] of entries) sums.set(name, (sums.get(name) ?? 0) + ms);
  return [...sums].sort((a, b) => b[1] - a[1]);
}

/** CPU ms per unit of work (a task, a request), by report group and for the whole machine's busy time. */
export interface CpuPerUnit {
  groups: [string, number][];
  machine: number;
}

/** The report's groups: gengate by role and PostgreSQL as they are, the bench's own processes together. */
function reportGroup(group: string): string {
  if (group.startsWith('gengate') || group === 'postgres') return group;
  return group.startsWith('bench ') ? 'bench' : 'other';
}

/** The CPU spent between two snapshots, per unit of work done meanwhile. */
export function cpuPerUnit(from: CpuSnapshot, to: CpuSnapshot, units: number): CpuPerUnit {
  const per = (ms: number) => (units > 0 ? ms / units : Number.NaN);
  const groups = sumByName(cpuByGroup(from, to).map(([group, ms]) => [reportGroup(group), ms]));
  return {
    groups: groups.map(([group, ms]) => [group, per(ms)]),
    machine: per(busyMs(to) - busyMs(from)),
  };
}
