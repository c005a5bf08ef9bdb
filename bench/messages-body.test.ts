import { describe, expect, it } from 'vitest';
import { MESSAGES_TOOLS, messagesBody } from './messages-body.js';

describe('the Claude Code-sized Messages body', () => {
  it('is about 90 KB, streamed, with 12 tools, thinking and cache_control, and the same every time', () => {
    const text = messagesBody('claude-sonnet-4-5');
    const bytes = Buffer.byteLength(text);
    expect(bytes).toBeGreaterThan(80_000);
    expect(bytes).toBeLessThan(100_000);
    const body = JSON.parse(text);
    expect(body).toMatchObject({ model: 'claude-sonnet-4-5', stream: true, max_tokens: 32_000 });
    expect(body.tools).toHaveLength(MESSAGES_TOOLS);
    expect(MESSAGES_TOOLS).toBe(12);
    expect(body.thinking.type).toBe('enabled');
    expect(body.system[1].cache_control).toEqual({ type: 'ephemeral' });
    expect(body.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(messagesBody('claude-sonnet-4-5')).toBe(text);
  });
});
