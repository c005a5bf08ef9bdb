import { describe, expect, it } from 'vitest';
import { deliveredTexts } from './delivered-output.js';

const delta = (index: number, delta: Record<string, unknown>) =>
  `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index, delta })}\n\n`;

describe('deliveredTexts', () => {
  it('joins each block’s text, thinking and tool input pieces, in block order; signatures count nothing', () => {
    const events = [
      delta(0, { type: 'thinking_delta', thinking: 'Let me ' }),
      delta(0, { type: 'thinking_delta', thinking: 'think.' }),
      delta(0, { type: 'signature_delta', signature: 'EqQBCkYIBxgC' }),
      delta(2, { type: 'input_json_delta', partial_json: '{"city":' }),
      delta(1, { type: 'text_delta', text: 'Checking ' }),
      delta(2, { type: 'input_json_delta', partial_json: '"Paris"}' }),
      delta(1, { type: 'text_delta', text: 'the weather.' }),
    ];
    expect(deliveredTexts(events)).toEqual(['Let me think.', 'Checking the weather.', '{"city":"Paris"}']);
  });

  it('skips what is not a readable delta', () => {
    expect(
      deliveredTexts([
        'event: content_block_delta\ndata: {not json\n\n',
        'event: content_block_delta\n\n',
        delta(0, { type: 'citations_delta', citation: { cited_text: 'x' } }),
        delta(0, { type: 'text_delta', text: '' }),
      ]),
    ).toEqual([]);
  });
});
