// A Messages API request the size and shape of Claude Code's (about 90 KB: a long system prompt in
// cache_control blocks, 12 tools with JSON schemas, thinking, metadata, context management, a few
// turns of conversation, streamed), built deterministically so every run sends the same bytes.

export const MESSAGES_PATH = '/v1/messages';
export const MESSAGES_TOOLS = 12;

/** Deterministic filler prose: sentences of the kind a system prompt is made of. */
function prose(words: number, seed: number): string {
  const vocabulary = [
    'the',
    'tool',
    'file',
    'user',
    'code',
    'read',
    'write',
    'edit',
    'search',
    'command',
    'output',
    'always',
    'never',
    'before',
    'after',
    'project',
    'change',
    'test',
    'result',
    'check',
    'path',
    'directory',
    'concise',
    'answer',
    'explain',
    'careful',
    'request',
    'context',
    'repository',
  ];
  const out: string[] = [];
  let state = seed;
  for (let i = 0; i < words; i++) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    out.push(vocabulary[state % vocabulary.length]);
    if (i % 14 === 13) out.push('.\n');
  }
  return out.join(' ');
}

function tool(index: number) {
  return {
    name: `Tool${index}`,
    description: prose(420, index + 1),
    input_schema: {
      type: 'object',
      properties: {
        file_path: { type: 'string', description: prose(30, index + 100) },
        pattern: { type: 'string', description: prose(20, index + 200) },
        limit: { type: 'number', description: prose(12, index + 300) },
        options: {
          type: 'object',
          properties: {
            recursive: { type: 'boolean' },
            ignore: { type: 'array', items: { type: 'string' } },
          },
        },
      },
      required: ['file_path'],
      additionalProperties: false,
      $schema: 'http://json-schema.org/draft-07/schema#',
    },
  };
}

/** The body for `model`; streamed, max_tokens 32,000 as Claude Code asks. */
export function messagesBody(model: string): string {
  return JSON.stringify({
    model,
    max_tokens: 32_000,
    stream: true,
    metadata: { user_id: 'user_bench_0123456789abcdef_account__session_0000' },
    thinking: { type: 'enabled', budget_tokens: 31_999 },
    context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
    system: [
      { type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude." },
      { type: 'text', text: prose(4_900, 7), cache_control: { type: 'ephemeral' } },
    ],
    tools: Array.from({ length: MESSAGES_TOOLS }, (_, i) => tool(i)),
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: `<system-reminder>${prose(600, 11)}</system-reminder>` },
          { type: 'text', text: 'Read the file notes.txt and tell me what it says.' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Reading it.' },
          { type: 'tool_use', id: 'toolu_bench_1', name: 'Tool0', input: { file_path: '/work/notes.txt' } },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_bench_1',
            content: prose(500, 13),
            cache_control: { type: 'ephemeral' },
          },
        ],
      },
    ],
  });
}
