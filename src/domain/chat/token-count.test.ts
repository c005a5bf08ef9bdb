import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { MIXED, SAMPLES } from '../../testing/mixed-text.js';
import { BOUND_FACTOR, countPromptTokens, countTokens, tokenizerFamily, utf8Bytes } from './token-count.js';
import { collectOutput } from './usage.js';

const PLAIN = { disallowedSpecial: new Set<string>() };

describe('tokenizerFamily', () => {
  it('names OpenAI encodings by model, the upstream id first, and bounds everything else', () => {
    expect(tokenizerFamily('gpt-4o-2024-08-06', 'my-alias')).toBe('o200k');
    expect(tokenizerFamily('my-alias', 'gpt-5-mini')).toBe('o200k');
    for (const id of ['gpt-4.1-nano', 'o3', 'o4-mini', 'openai/gpt-oss-120b', 'chatgpt-4o-latest'])
      expect(tokenizerFamily(id), id).toBe('o200k');
    for (const id of ['gpt-4-turbo', 'gpt-3.5-turbo']) expect(tokenizerFamily(id), id).toBe('cl100k');
    for (const id of ['claude-sonnet-4-5-20250929', 'llama-3.1-70b', 'mistral-large'])
      expect(tokenizerFamily(id), id).toBe('bound');
  });
});

describe('countTokens', () => {
  it('counts OpenAI text exactly as o200k encodes it, special-token look-alikes as plain text', async () => {
    expect(await countTokens('o200k', [MIXED])).toBe(encode(MIXED, PLAIN).length);
    expect(await countTokens('o200k', ['a <|endoftext|> b', ''])).toBe(
      encode('a <|endoftext|> b', PLAIN).length,
    );
  });

  it('bounds other families above 1.3× o200k on every kind of text, never above the UTF-8 bytes', async () => {
    for (const [kind, text] of Object.entries(SAMPLES)) {
      const bound = await countTokens('bound', [text]);
      expect(bound, kind).toBeGreaterThanOrEqual(Math.ceil(encode(text, PLAIN).length * 1.3));
      expect(bound, kind).toBeLessThanOrEqual(Buffer.byteLength(text));
    }
    expect(BOUND_FACTOR).toBeGreaterThanOrEqual(1.3);
    // A single multibyte character: the byte cap, not the factor, decides.
    expect(await countTokens('bound', ['я'])).toBe(2);
  });

  it('counts a prompt with OpenAI framing: 3 per message, 3 for the reply, images at the estimate', async () => {
    const count = await countPromptTokens(
      'o200k',
      [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
          ],
        },
      ],
      [undefined],
    );
    const tokens = (text: string) => encode(text, PLAIN).length;
    expect(count).toBe(
      3 + 2 * 3 + tokens('system') + tokens('Be brief.') + tokens('user') + tokens('What is this?') + 85,
    );
  });
});

describe('utf8Bytes', () => {
  it('counts UTF-8 bytes, never fewer than the tokens of any family', async () => {
    expect(utf8Bytes(['héllo', '', '日本'])).toBe(6 + 6);
    const texts = Object.values(SAMPLES);
    for (const family of ['o200k', 'cl100k', 'bound'] as const)
      expect(utf8Bytes(texts)).toBeGreaterThanOrEqual(await countTokens(family, texts));
  });
});

describe('collectOutput', () => {
  it('keeps each choice apart and takes content, refusal, reasoning and tool-call text', () => {
    const output: string[][] = [];
    const chunk = (choices: unknown[]) =>
      ({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices }) as never;
    collectOutput(chunk([{ index: 0, delta: { role: 'assistant', content: '' } }]), output);
    expect(output).toEqual([]);
    collectOutput(chunk([{ index: 1, delta: { content: 'Hello' } }]), output);
    collectOutput(chunk([{ index: 0, delta: { reasoning_content: 'think', refusal: 'no' } }]), output);
    collectOutput(
      chunk([
        { index: 0, delta: { tool_calls: [{ index: 0, function: { name: 'f', arguments: '{"a"' } }] } },
      ]),
      output,
    );
    expect(output[0]).toEqual(['no', 'think', 'f', '{"a"']);
    expect(output[1]).toEqual(['Hello']);
  });
});
