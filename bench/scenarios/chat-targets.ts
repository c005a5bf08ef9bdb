// The same chat request, addressed to each system: gengate (with its key), the bare pass-through,
// Portkey (with its provider headers) and the fake upstream directly.
import type { GengateInstance } from '../gengate.js';
import type { HttpTarget } from '../load.js';
import { portkeyHeaders } from '../portkey.js';
import type { BenchEnvironment } from './context.js';

export const CHAT_PATH = '/v1/chat/completions';

export function chatBody(model: string, stream: boolean): string {
  return JSON.stringify({
    model,
    messages: [
      { role: 'system', content: 'You are a concise assistant.' },
      { role: 'user', content: 'Say hello to the benchmark in one short sentence.' },
    ],
    max_tokens: 64,
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  });
}

export type ChatSystem = 'gengate' | 'bare pass-through' | 'portkey' | 'direct upstream';

export function chatTargets(
  env: BenchEnvironment,
  gengate: GengateInstance,
  stream: boolean,
): Record<ChatSystem, HttpTarget | null> {
  const body = chatBody(env.settings.chatModel, stream);
  const json = { 'content-type': 'application/json' };
  const upstreamAuth = { authorization: 'Bearer sk-fake' };
  return {
    gengate: {
      name: 'gengate',
      origin: gengate.origin,
      path: CHAT_PATH,
      method: 'POST',
      headers: { ...json, ...gengate.auth },
      body,
    },
    'bare pass-through': {
      name: 'bare pass-through',
      origin: env.baselines.origin,
      path: CHAT_PATH,
      method: 'POST',
      headers: { ...json, ...upstreamAuth },
      body,
    },
    portkey: env.portkey
      ? {
          name: 'portkey',
          origin: env.portkey.origin,
          path: CHAT_PATH,
          method: 'POST',
          headers: { ...json, ...portkeyHeaders(env.upstreamBaseUrl) },
          body,
        }
      : null,
    'direct upstream': {
      name: 'direct upstream',
      origin: env.upstream.origin,
      path: CHAT_PATH,
      method: 'POST',
      headers: { ...json, ...upstreamAuth },
      body,
    },
  };
}
