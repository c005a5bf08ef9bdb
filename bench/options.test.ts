import { describe, expect, it } from 'vitest';
import { parseOptions, SCENARIOS } from './options.js';

describe('parseOptions', () => {
  it('runs the issue’s full settings by default: 32 connections, 10,000 tasks, every scenario, SQLite only', () => {
    const { settings, only, strict } = parseOptions([]);
    expect(settings).toMatchObject({ quick: false, pg: false, connections: 32, tasks: 10_000 });
    // As many untimed requests per system as measured ones: fresh processes are warm before the rounds.
    expect(settings.latencyWarmup).toBeGreaterThanOrEqual(settings.latencyRounds * settings.latencyPerRound);
    expect([...only]).toEqual([...SCENARIOS]);
    expect(strict).toBe(false);
  });

  it('shortens everything with --quick, down to 1,000 tasks', () => {
    const full = parseOptions([]).settings;
    const quick = parseOptions(['--quick', '--pg']).settings;
    expect(quick).toMatchObject({ quick: true, pg: true, tasks: 1_000, connections: 32 });
    expect(quick.durationSec).toBeLessThan(full.durationSec);
    expect(quick.taskTimeoutSec).toBeLessThan(full.taskTimeoutSec);
    expect(quick.latencyWarmup).toBeLessThan(full.latencyWarmup);
  });

  it('selects scenarios with --only and refuses unknown names and flags', () => {
    expect([...parseOptions(['--only=chat,tasks']).only]).toEqual(['chat', 'tasks']);
    expect(() => parseOptions(['--only=chat,bogus'])).toThrow(/unknown scenario\(s\): bogus/);
    expect(() => parseOptions(['--fast'])).toThrow(/unknown option\(s\): --fast/);
  });

  it('takes the repository of the first-start rounds from --checkout, this checkout by default', () => {
    expect(parseOptions([]).checkout).toBeUndefined();
    expect(parseOptions(['--only=start', '--checkout=/tmp/old']).checkout).toBe('/tmp/old');
  });
});
