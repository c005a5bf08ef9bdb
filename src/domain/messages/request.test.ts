import { describe, expect, it } from 'vitest';
import { IMAGE_TOKEN_BOUND } from '../chat/prompt-size.js';
import type { AppError } from '../errors.js';
import { parseMessagesRequest } from './request.js';

const base = { model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] };
const refusal = (body: Record<string, unknown>) => {
  try {
    parseMessagesRequest(body, JSON.stringify(body).length);
  } catch (error) {
    return error as AppError;
  }
  throw new Error('accepted');
};

describe('parseMessagesRequest', () => {
  it('reads max_tokens, stream, images and the prompt bound from the body bytes', () => {
    const data = 'A'.repeat(40_000);
    const body = {
      ...base,
      stream: true,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data } },
            { type: 'text', text: 'what is it' },
          ],
        },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'x', input: {} }] },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 't1',
              content: [{ type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } }],
            },
          ],
        },
      ],
    };
    const raw = JSON.stringify(body).length;
    const parsed = parseMessagesRequest(body, raw);
    expect(parsed).toMatchObject({ model: 'claude-sonnet-4-5', maxTokens: 100, stream: true, images: 2 });
    // The base64 counts as its image's allowance, not as its bytes.
    expect(parsed.promptTokenBound).toBe(raw - data.length + 2 * IMAGE_TOKEN_BOUND + 3 * 8 + 16);
    expect(parsed.promptEstimate).toBeLessThanOrEqual(parsed.promptTokenBound);
  });

  it('lists server tools with their max_uses; client tools are not server tools', () => {
    const parsed = parseMessagesRequest(
      {
        ...base,
        tools: [
          { name: 'mine', input_schema: { type: 'object' } },
          { type: 'custom', name: 'mine2', input_schema: { type: 'object' } },
          { type: 'bash_20250124', name: 'bash' },
          { type: 'text_editor_20250728', name: 'str_replace_based_edit_tool' },
          { type: 'web_search_20250305', name: 'web_search', max_uses: 3 },
          { type: 'web_fetch_20250910', name: 'web_fetch' },
          { type: 'code_execution_20250825', name: 'code_execution' },
          { type: 'something_new_20270101', name: 'x' },
        ],
      },
      1_000,
    );
    expect(parsed.serverTools).toEqual([
      { kind: 'web_search', type: 'web_search_20250305', maxUses: 3 },
      { kind: 'web_fetch', type: 'web_fetch_20250910', maxUses: null },
      { kind: 'code_execution', type: 'code_execution_20250825', maxUses: null },
      { kind: 'other', type: 'something_new_20270101', maxUses: null },
    ]);
  });

  it('refuses what Anthropic refuses, with its field in the message', () => {
    expect(refusal({ max_tokens: 5, messages: base.messages }).message).toBe('model: Field required');
    expect(refusal({ ...base, max_tokens: undefined }).message).toBe('max_tokens: Field required');
    expect(refusal({ ...base, max_tokens: 1.5 }).message).toMatch(/max_tokens/);
    expect(refusal({ ...base, messages: undefined }).message).toBe('messages: Field required');
    expect(refusal({ ...base, messages: [] }).message).toMatch(/at least one message/);
    expect(refusal({ ...base, stream: 'yes' }).message).toMatch(/stream/);
    expect(refusal({ ...base, system: 5 }).message).toMatch(/system/);
    expect(refusal({ ...base, messages: [{ role: 'assistant', content: 'x' }] }).message).toMatch(
      /first message/,
    );
    expect(refusal({ ...base, messages: [{ role: 'tool', content: 'x' }] }).message).toMatch(/role/);
    expect(refusal({ ...base, messages: [{ role: 'user', content: 5 }] }).message).toMatch(/content/);
    expect(refusal({ ...base, messages: [{ role: 'user', content: [{ text: 'x' }] }] }).message).toMatch(
      /type/,
    );
    expect(
      refusal({
        ...base,
        messages: [
          { role: 'user', content: 'x' },
          { role: 'assistant', content: [{ type: 'tool_result', tool_use_id: 'a', content: 'b' }] },
        ],
      }).message,
    ).toMatch(/only allowed in user messages/);
    expect(refusal({ ...base, tools: {} }).message).toMatch(/tools/);
    for (const body of [
      { ...base, max_tokens: 0 },
      { ...base, messages: [] },
    ])
      expect(refusal(body).status).toBeLessThan(500);
  });
});
