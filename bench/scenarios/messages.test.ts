import { describe, expect, it } from 'vitest';
import { RAW_RELAY_PATH } from '../baselines/raw-relay.js';
import type { GengateInstance } from '../gengate.js';
import { parseOptions } from '../options.js';
import { TARGETS } from '../targets.js';
import type { LoadStats } from '../types.js';
import type { BenchEnvironment } from './context.js';
import { cpuPerRequest, messagesTargets } from './messages.js';

const env = {
  settings: parseOptions(['--quick']).settings,
  upstream: { origin: 'http://127.0.0.1:1' },
  baselines: { origin: 'http://127.0.0.1:2' },
} as unknown as BenchEnvironment;
const gengate = {
  origin: 'http://127.0.0.1:3',
  auth: { authorization: 'Bearer sk_live_bench' },
} as unknown as GengateInstance;

describe('the Messages scenario', () => {
  it('sends the same Claude Code-sized stream to each system, gengate with its key as x-api-key', () => {
    const targets = messagesTargets(env, gengate);
    expect(targets.gengate).toMatchObject({
      origin: 'http://127.0.0.1:3',
      path: '/v1/messages',
      method: 'POST',
      headers: { 'x-api-key': 'sk_live_bench', 'anthropic-version': '2023-06-01' },
    });
    expect(targets['bare pass-through'].origin).toBe('http://127.0.0.1:2');
    expect(targets['direct upstream'].origin).toBe('http://127.0.0.1:1');
    const body = JSON.parse(targets.gengate.body!);
    expect(body).toMatchObject({ model: 'claude-sonnet-4-5', stream: true });
    expect(body.tools).toHaveLength(12);
    // The upstream gets the id gengate sends it; otherwise the bodies are the same.
    expect(JSON.parse(targets['direct upstream'].body!).model).toBe('claude-sonnet-4-5-upstream');
    expect(targets['bare pass-through'].body).toBe(targets.gengate.body);
  });

  it('measures the raw relay on the baselines process with the body the upstream gets', () => {
    const targets = messagesTargets(env, gengate);
    expect(targets['raw relay']).toMatchObject({
      origin: 'http://127.0.0.1:2',
      path: RAW_RELAY_PATH,
      method: 'POST',
    });
    expect(targets['raw relay'].body).toBe(targets['direct upstream'].body);
  });

  it('reports CPU per completed request, and nothing when none completed', () => {
    expect(cpuPerRequest(1_500, { ok: 3_000 } as LoadStats)).toBe(0.5);
    expect(cpuPerRequest(1_500, { ok: 0 } as LoadStats)).toBeNull();
    expect(cpuPerRequest(1_500, undefined)).toBeNull();
  });

  it('is one of the scenarios, with the targets of the issue', () => {
    expect([...parseOptions(['--only=messages']).only]).toEqual(['messages']);
    expect(TARGETS.messagesVsBare).toEqual({ op: '>=', value: 0.5 });
    expect(TARGETS.messagesAddedTtfbMs).toEqual({ op: '<=', value: 1 });
  });
});
