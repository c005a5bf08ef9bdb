// Validators for Anthropic Messages API answers (POST /v1/messages, its stream events and errors,
// POST /v1/messages/count_tokens), against the types of `@anthropic-ai/sdk` (the version in
// package-lock.json), which Stainless generates from Anthropic's OpenAPI document: the types named in
// test/contracts/anthropic-types.ts become JSON Schema at test time (sdk-schemas.ts). Each returns
// the schema errors, [] when the value conforms. Use them on what gengate's /v1/messages answers:
//
//   expect(messagesAnswerErrors(await res.json())).toEqual([]);
//   for (const event of events) expect(messagesEventErrors(event)).toEqual([]);
import { join } from 'node:path';
import { loadSdkContract } from './sdk-schemas.js';

/**
 * Fields the SDK types as always present (each `T | null`, or a `caller` object) but Anthropic's
 * documented examples of the same objects leave out: the Message and its stream events in
 * https://docs.anthropic.com/en/api/messages and
 * https://docs.anthropic.com/en/docs/build-with-claude/streaming show a message with `id`, `type`,
 * `role`, `content`, `model`, `stop_reason`, `stop_sequence` and `usage` (`input_tokens`,
 * `output_tokens`), text blocks with `type` and `text`, tool_use blocks with `id`, `name` and
 * `input`, and a message_delta's usage with `output_tokens` only. An answer passed through from
 * Anthropic carries these fields; one gengate builds itself (a GPT model answering in Messages form)
 * may leave them out, and still conforms here. Each is checked when present.
 */
const ABSENT_IN_ANTHROPIC_EXAMPLES: Record<string, string[]> = {
  Message: ['container', 'diagnostics', 'stop_details'],
  CompleteMessage: ['container', 'diagnostics', 'stop_details'],
  'RawMessageDeltaEvent.Delta': ['container', 'stop_details'],
  TextBlock: ['citations'],
  ToolUseBlock: ['caller'],
  Usage: [
    'cache_creation',
    'cache_creation_input_tokens',
    'cache_read_input_tokens',
    'inference_geo',
    'output_tokens_details',
    'server_tool_use',
    'service_tier',
    'speed',
  ],
  MessageDeltaUsage: [
    'cache_creation_input_tokens',
    'cache_read_input_tokens',
    'input_tokens',
    'output_tokens_details',
    'server_tool_use',
  ],
};

export const anthropic = loadSdkContract(
  '@anthropic-ai/sdk',
  join(import.meta.dirname, 'anthropic-types.ts'),
  {
    mayBeAbsent: ABSENT_IN_ANTHROPIC_EXAMPLES,
  },
);

/** A non-streaming answer: a Message whose stop_reason is set. */
export const messagesAnswerErrors = (body: unknown): string[] => anthropic.errors('CompleteMessage', body);

/** The SDK type of each stream event, by its `type`: RawMessageStreamEvent's members, ping, error. */
const EVENT_SCHEMAS: Record<string, string> = {
  ...Object.fromEntries(
    (anthropic.definitions.RawMessageStreamEvent.anyOf as { $ref: string }[]).map(({ $ref }) => {
      const name = decodeURIComponent($ref.split('/').at(-1) as string);
      const type = (anthropic.definitions[name].properties as Record<string, { const?: string }>).type;
      return [type.const as string, name];
    }),
  ),
  ping: 'PingEvent',
  error: 'ErrorEvent',
};

/** One stream event (the JSON of its `data:` line), checked against the schema its `type` names. */
export function messagesEventErrors(event: unknown): string[] {
  const type = (event as { type?: unknown } | null)?.type;
  const schema = typeof type === 'string' ? EVENT_SCHEMAS[type] : undefined;
  if (!schema) return [`/type is not a Messages stream event type: ${JSON.stringify(type)}`];
  return anthropic.errors(schema, event);
}

/**
 * A whole stream, in order: each event conforms, and the sequence is Anthropic's: message_start
 * first, then content blocks (start, deltas, stop, with increasing indexes), message_delta,
 * message_stop last; ping anywhere; an error event ends the stream.
 */
export function messagesStreamErrors(events: unknown[]): string[] {
  const errors = events.flatMap((event, i) => messagesEventErrors(event).map((error) => `[${i}] ${error}`));
  if (errors.length > 0) return errors;
  const typed = events as { type: string; index?: number }[];
  const flow = typed.filter((event) => event.type !== 'ping');
  if (flow[0]?.type !== 'message_start') errors.push('the stream does not begin with message_start');
  const last = flow.at(-1)?.type;
  if (last !== 'message_stop' && last !== 'error')
    errors.push(`the stream ends with ${last}, not message_stop`);
  const open = new Set<number>();
  let nextIndex = 0;
  let delta = false;
  for (const [i, event] of flow.entries()) {
    if (event.type === 'message_start' && i !== 0) errors.push(`[${i}] a second message_start`);
    if (event.type === 'content_block_start') {
      if (event.index !== nextIndex) errors.push(`[${i}] block index ${event.index}, expected ${nextIndex}`);
      open.add(event.index as number);
      nextIndex++;
    }
    if (event.type === 'content_block_delta' && !open.has(event.index as number))
      errors.push(`[${i}] a delta for block ${event.index}, which is not open`);
    if (event.type === 'content_block_stop' && !open.delete(event.index as number))
      errors.push(`[${i}] content_block_stop for block ${event.index}, which is not open`);
    if (event.type === 'message_delta') {
      if (open.size > 0) errors.push(`[${i}] message_delta while blocks ${[...open]} are open`);
      delta = true;
    }
  }
  if (last === 'message_stop' && !delta) errors.push('no message_delta before message_stop');
  return errors;
}

/** An error answer (HTTP 4xx/5xx body). */
export const messagesErrorBodyErrors = (body: unknown): string[] => anthropic.errors('ErrorResponse', body);

/** The answer of POST /v1/messages/count_tokens. */
export const countTokensErrors = (body: unknown): string[] => anthropic.errors('MessageTokensCount', body);
