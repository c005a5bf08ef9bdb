// What the simulator answers to a chat request: a pure function of the request, so every reply is
// deterministic and its token count known in advance. A "token" of the simulator is one word of the
// reply (or one fragment of tool-call arguments), and a stream carries exactly one token per chunk,
// which makes the billing of a stream cut after K chunks exact.
import { createHash } from 'node:crypto';
import type { ChatContentPart, ChatFunctionTool, ChatMessage } from '../../domain/chat/types.js';
import { ownEntry } from '../../domain/own-entry.js';

export interface ChatDirectives {
  /** [sim:delay=MS] time before the first output. */
  delayMs: number;
  /** [sim:pace=MS] pause between stream chunks (default: a bare event-loop yield). */
  paceMs: number;
  /** [sim:fail=reject|billing|overload|params|timeout|stream] */
  fail: string | null;
  /** [sim:tokens=N] exactly N completion tokens (before max_tokens applies). */
  tokens: number | null;
  /** [sim:tool] call the first tool; [sim:tool=NAME] call that one. */
  tool: string | true | null;
}

/** One block may hold several directives, as in the media simulator: "[sim:tokens=50,pace=10]". */
const DIRECTIVE = /\[sim:([^\]]*)\]/gi;
const MAX_ECHO_WORDS = 48;
const ARGUMENT_FRAGMENT_CHARS = 8;

function clampInt(raw: string, max: number): number | null {
  return /^\d{1,10}$/.test(raw) ? Math.min(Number(raw), max) : null;
}

export function parseDirectives(text: string): ChatDirectives {
  const found: ChatDirectives = { delayMs: 0, paceMs: 0, fail: null, tokens: null, tool: null };
  for (const [, block] of text.matchAll(DIRECTIVE)) {
    for (const part of block.split(/[,;\s]+/)) {
      const [rawName, rawValue] = part.split('=', 2);
      const name = rawName.trim().toLowerCase();
      const value = (rawValue ?? '').trim();
      if (name === 'delay') found.delayMs = clampInt(value, 600_000) ?? found.delayMs;
      else if (name === 'pace') found.paceMs = clampInt(value, 10_000) ?? found.paceMs;
      else if (name === 'fail') found.fail = value.toLowerCase() || 'overload';
      else if (name === 'tokens') found.tokens = clampInt(value, 1_000_000) ?? found.tokens;
      else if (name === 'tool') found.tool = value || true;
    }
  }
  return found;
}

export function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(
      (part): part is ChatContentPart & { text: string } =>
        part.type === 'text' && typeof (part as { text?: unknown }).text === 'string',
    )
    .map((part) => part.text)
    .join(' ');
}

const withoutDirectives = (text: string) => text.replace(DIRECTIVE, ' ').replace(/\s+/g, ' ').trim();
const words = (text: string) => withoutDirectives(text).split(' ').filter(Boolean);

export function lastUserMessage(messages: ChatMessage[]): ChatMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === 'user') return messages[i];
  return undefined;
}

export interface ScriptInput {
  model: string;
  messages: ChatMessage[];
  tools: ChatFunctionTool[];
  toolChoice: unknown;
  maxTokens: number | null;
}

export type ChatScript =
  | { kind: 'text'; tokens: string[]; finishReason: 'stop' | 'length' }
  | {
      kind: 'tool';
      id: string;
      name: string;
      /** The argument JSON, split into the fragments a stream sends (one token each). */
      fragments: string[];
      finishReason: 'tool_calls' | 'length';
    };

/** Completion tokens of a script: words of a text reply; 1 for a tool call's header plus its argument fragments. */
export function scriptTokens(script: ChatScript): number {
  return script.kind === 'text' ? script.tokens.length : 1 + script.fragments.length;
}

export function scriptReply(input: ScriptInput, directives: ChatDirectives): ChatScript {
  const last = input.messages[input.messages.length - 1];
  const user = lastUserMessage(input.messages);
  const prompt = textOf(user?.content);
  const tool = last?.role === 'user' ? chooseTool(input, prompt, directives) : undefined;
  if (tool) return toolScript(tool, prompt, input.maxTokens);

  const base =
    last?.role === 'tool' ? toolResultWords(input.messages, last) : answerWords(input.model, prompt, user);
  let reply = base;
  if (directives.tokens !== null) {
    reply = Array.from({ length: directives.tokens }, (_, i) => base[i % base.length]);
  }
  const limited = input.maxTokens !== null && reply.length > input.maxTokens;
  if (limited) reply = reply.slice(0, input.maxTokens!);
  return {
    kind: 'text',
    tokens: reply.map((word, i) => (i === 0 ? word : ` ${word}`)),
    finishReason: limited ? 'length' : 'stop',
  };
}

function answerWords(model: string, prompt: string, user: ChatMessage | undefined): string[] {
  const images = Array.isArray(user?.content)
    ? user.content.filter((part) => part.type === 'image_url').length
    : 0;
  const echoed = words(prompt).slice(0, MAX_ECHO_WORDS);
  return [
    'Simulated',
    'reply',
    'from',
    `${model}:`,
    ...(echoed.length > 0 ? ['you', 'said', ...echoed] : ['hello.']),
    ...(images > 0 ? ['I', 'see', String(images), images === 1 ? 'image.' : 'images.'] : []),
  ];
}

function toolResultWords(messages: ChatMessage[], result: ChatMessage): string[] {
  const call = messages
    .flatMap((m) => (m.role === 'assistant' && Array.isArray(m.tool_calls) ? m.tool_calls : []))
    .find((c) => c.id === result.tool_call_id);
  const resultWords = words(textOf(result.content)).slice(0, MAX_ECHO_WORDS);
  return [
    'The',
    'tool',
    call?.function.name ?? 'call',
    'returned:',
    ...(resultWords.length > 0 ? resultWords : ['nothing.']),
  ];
}

function chooseTool(
  input: ScriptInput,
  prompt: string,
  directives: ChatDirectives,
): ChatFunctionTool | undefined {
  const tools = input.tools;
  if (tools.length === 0 || input.toolChoice === 'none') return undefined;
  const byName = (name: string) => tools.find((t) => t.function.name === name);
  const choice = input.toolChoice as { type?: string; function?: { name?: string } } | undefined;
  if (choice && typeof choice === 'object' && choice.type === 'function' && choice.function?.name) {
    return byName(choice.function.name) ?? tools[0];
  }
  const named = typeof directives.tool === 'string' ? byName(directives.tool) : undefined;
  if (named) return named;
  if (directives.tool !== null) return tools[0];
  const lower = prompt.toLowerCase();
  if (/\b(call|use)\b/.test(lower)) {
    const mentioned = tools.find((t) => lower.includes(t.function.name.toLowerCase()));
    if (mentioned) return mentioned;
  }
  return input.toolChoice === 'required' ? tools[0] : undefined;
}

function toolScript(tool: ChatFunctionTool, prompt: string, maxTokens: number | null): ChatScript {
  const args = JSON.stringify(argumentsFor(tool.function.parameters, withoutDirectives(prompt).slice(0, 64)));
  const chars = Array.from(args);
  let fragments: string[] = [];
  for (let i = 0; i < chars.length; i += ARGUMENT_FRAGMENT_CHARS)
    fragments.push(chars.slice(i, i + ARGUMENT_FRAGMENT_CHARS).join(''));
  const limited = maxTokens !== null && 1 + fragments.length > maxTokens;
  if (limited) fragments = fragments.slice(0, Math.max(0, maxTokens! - 1));
  const id = `call_${createHash('sha256').update(`${tool.function.name}\n${prompt}`).digest('hex').slice(0, 24)}`;
  return {
    kind: 'tool',
    id,
    name: tool.function.name,
    fragments,
    finishReason: limited ? 'length' : 'tool_calls',
  };
}

/** Deterministic arguments that satisfy a simple JSON Schema: required properties (or all), by type. */
function argumentsFor(schema: Record<string, unknown> | undefined, text: string): Record<string, unknown> {
  const properties = (schema?.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = Array.isArray(schema?.required) ? (schema.required as string[]) : Object.keys(properties);
  // Own entries whatever the names (`__proto__` among them): the schema is the client's.
  return Object.fromEntries(required.map((name) => [name, valueFor(ownEntry(properties, name) ?? {}, text)]));
}

function valueFor(property: Record<string, unknown>, text: string): unknown {
  if (Array.isArray(property.enum) && property.enum.length > 0) return property.enum[0];
  const type = Array.isArray(property.type) ? property.type[0] : property.type;
  switch (type) {
    case 'integer':
    case 'number':
      return typeof property.minimum === 'number' ? property.minimum : 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return argumentsFor(property, text);
    default:
      return text || 'simulated';
  }
}
