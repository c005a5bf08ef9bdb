import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  estimatePromptTokens,
  IMAGE_TOKEN_BOUND,
  imageTokenBoundOf,
  measurePrompt,
  promptTokenBound,
  TOOLS_TOKEN_BOUND,
} from './prompt-size.js';
import type { ChatMessage } from './types.js';

const measure = (messages: ChatMessage[], extra: Record<string, unknown> = {}) =>
  measurePrompt({ messages, body: { messages, ...extra } });

describe('prompt size', () => {
  it('counts UTF-8 bytes of role and text, not characters', () => {
    const size = measure([{ role: 'user', content: 'привет' }]);
    expect(size.messageBytes).toBe(4 + 12);
    expect(size.messages).toBe(1);
  });

  it('counts an image as a fixed allowance, however large its data URL', () => {
    const huge = `data:image/png;base64,${'A'.repeat(1_000_000)}`;
    const size = measure([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image_url', image_url: { url: huge } },
        ],
      },
    ]);
    expect(size.images).toBe(1);
    expect(size.messageBytes).toBe(4 + 4);
    expect(promptTokenBound(size)).toBeLessThan(IMAGE_TOKEN_BOUND + 100);
  });

  it('adds tool definitions and the tool-use allowance to the bound', () => {
    const messages: ChatMessage[] = [{ role: 'user', content: 'x' }];
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }];
    const without = promptTokenBound(measure(messages));
    const withTools = promptTokenBound(measure(messages, { tools }));
    expect(withTools - without).toBe(Buffer.byteLength(JSON.stringify(tools)) + TOOLS_TOKEN_BOUND);
  });

  it('keeps the estimate at or below the bound, and the bound at or above the text bytes', () => {
    const message = fc.record({
      role: fc.constantFrom('system', 'user', 'assistant'),
      content: fc.string({ unit: 'grapheme', maxLength: 200 }),
    });
    fc.assert(
      fc.property(fc.array(message, { minLength: 1, maxLength: 8 }), fc.nat(3), (messages, images) => {
        const withImages: ChatMessage[] = [
          ...messages,
          {
            role: 'user',
            content: Array.from({ length: images }, () => ({
              type: 'image_url',
              image_url: { url: 'https://x/y.png' },
            })),
          },
        ];
        const size = measure(withImages);
        const textBytes = messages.reduce((sum, m) => sum + Buffer.byteLength(m.content as string), 0);
        expect(promptTokenBound(size)).toBeGreaterThanOrEqual(textBytes);
        expect(estimatePromptTokens(size)).toBeLessThanOrEqual(promptTokenBound(size));
      }),
    );
  });

  it("holds gpt-4o-mini's inflated image tokens: up to 2,833 + 8 × 5,667 per high-detail image", () => {
    const size = measure([
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] },
    ]);
    expect(imageTokenBoundOf('gpt-4o-mini')).toBe(2_833 + 8 * 5_667);
    expect(imageTokenBoundOf('gpt-4o')).toBe(IMAGE_TOKEN_BOUND);
    expect(promptTokenBound(size, imageTokenBoundOf('gpt-4o-mini')) - promptTokenBound(size)).toBe(
      48_169 - IMAGE_TOKEN_BOUND,
    );
  });
});
