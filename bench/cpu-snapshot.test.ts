import { describe, expect, it } from 'vitest';
import { type CpuSnapshot, cpuByGroup, cpuPerUnit, cpuSnapshot, groupOf } from './cpu-snapshot.js';

/** For the tests of process groups: the machine's own times do not matter there. */
const NO_MACHINE_TIME = [0, 0, 0, 0, 0, 0, 0, 0];

/** `machine`: user nice system idle iowait irq softirq steal, in ms */
const snapshot = (machine: number[], processes: [string, string, number][]): CpuSnapshot => ({
  at: 0,
  machine,
  processes: new Map(processes.map(([pid, group, ms]) => [pid, [group, ms]])),
});

describe('groupOf', () => {
  it('tells PostgreSQL, gengate by role and the bench children apart', () => {
    expect(groupOf('postgres: 15/main: postgres test 127.0.0.1(5432) idle', 'postgres')).toBe('postgres');
    expect(
      groupOf('/usr/bin/node --max-semi-space-size=32 bin/gengate.mjs serve --role worker', 'node'),
    ).toBe('gengate worker');
    expect(groupOf('/usr/bin/node bin/gengate.mjs serve', 'node')).toBe('gengate');
    expect(groupOf('/usr/bin/node -r x.cjs bin/run-ts.mjs bench/load-child.ts', 'node')).toBe(
      'bench load-child',
    );
    expect(groupOf('redis-server 127.0.0.1:6379', 'redis-server')).toBe('redis-server');
  });
});

describe('cpuByGroup', () => {
  it('sums what each group spent, counting new processes from zero and dropping ended ones', () => {
    const from = snapshot(NO_MACHINE_TIME, [
      ['1', 'gengate api', 100],
      ['2', 'gengate api', 50],
      ['3', 'postgres', 10],
      ['4', 'postgres', 999],
    ]);
    const to = snapshot(NO_MACHINE_TIME, [
      ['1', 'gengate api', 130],
      ['2', 'gengate api', 70],
      ['3', 'postgres', 25],
      ['5', 'postgres', 5],
    ]);
    expect(cpuByGroup(from, to)).toEqual([
      ['gengate api', 50],
      ['postgres', 20],
    ]);
  });

  it('counts a reused pid of another group from zero', () => {
    const from = snapshot(NO_MACHINE_TIME, [['7', 'gengate worker', 500]]);
    const to = snapshot(NO_MACHINE_TIME, [['7', 'postgres', 40]]);
    expect(cpuByGroup(from, to)).toEqual([['postgres', 40]]);
  });
});

describe('cpuPerUnit', () => {
  it('divides by the units done and folds the bench children and the rest into two groups', () => {
    const from = snapshot(
      [1_000, 0, 500, 9_000, 0, 0, 100, 0],
      [
        ['1', 'gengate worker', 0],
        ['2', 'bench load-child', 0],
        ['3', 'bench webhook-receiver', 0],
        ['4', 'kdamond.0', 0],
      ],
    );
    const to = snapshot(
      [1_600, 0, 800, 9_500, 0, 0, 200, 0],
      [
        ['1', 'gengate worker', 400],
        ['2', 'bench load-child', 60],
        ['3', 'bench webhook-receiver', 40],
        ['4', 'kdamond.0', 20],
      ],
    );
    expect(cpuPerUnit(from, to, 100)).toEqual({
      groups: [
        ['gengate worker', 4],
        ['bench', 1],
        ['other', 0.2],
      ],
      // user 600 + system 300 + softirq 100; idle is not busy.
      machine: 10,
    });
  });

  it.skipIf(process.platform !== 'linux')('reads this machine', () => {
    const taken = cpuSnapshot();
    expect(taken.machine).toHaveLength(8);
    expect(taken.processes.get(String(process.pid))?.[1]).toBeGreaterThan(0);
  });
});
