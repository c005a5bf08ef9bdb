// What a chat stream is charged, against an upstream that bills like OpenAI: the loopback fake below
// honours `n`, streams several tokens per chunk (mixed English, Russian, code and JSON, tokenized with
// o200k as the model would generate it) and reports its own usage at the end. Whole streams and
// streams cut at several points, by the client or by the upstream, are charged the upstream's count
// priced: exactly when its usage arrives, and otherwise from the output read, re-tokenized (0 error on
// this text, bench/cut-stream-count.ts) give or take the chunks still in flight when the gateway
// stopped reading. The ledger is checked after each test.
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { decode, encode } from 'gpt-tokenizer/encoding/o200k_base';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { countTokens } from '../../domain/chat/token-count.js';
import { DEFAULT_CUT_STREAM_DRAIN_MS } from '../../services/chat/chat-call.js';
import { checkLedger } from '../../storage/ledger/ledger-check.js';
import { createTestApp, listenOnLoopback, type TestApp, type TestKey } from '../../testing/app.js';
import { balanceOf, expectedChatCost, settledUsage } from '../../testing/chat.js';
import { ENGINES } from '../../testing/db.js';
import {
  type FakeOpenAi,
  type RecordedRequest,
  sseHead,
  startFakeOpenAi,
} from '../../testing/fake-openai.js';
import { FakeAnthropic } from '../../testing/fakes/anthropic.js';
import { ENGLISH, MIXED, RUSSIAN } from '../../testing/mixed-text.js';

const UPSTREAM_MODEL = 'gpt-4o-2024-08-06';
const PLAIN = { disallowedSpecial: new Set<string>() };

/** How the fake streams: tokens per chunk, pause between chunks, and where it breaks off. */
interface Behaviour {
  chunkTokens: number;
  paceMs: number;
  /** Drop the connection (no usage, no [DONE]) after this many chunks per choice. */
  breakAfter?: number;
}

/** What the fake generated for one request: its own bill. */
interface Generated {
  promptTokens: number;
  /** Tokens written to the gateway so far, over all choices. */
  completionTokens: number;
  /** Tokens per chunk × choices: what may still be in flight when the gateway stops reading. */
  inFlight: number;
  finished: Promise<void>;
}

/** Chunks of `size` tokens, never splitting a character (upstreams hold a partial one back). */
function chunked(tokens: number[], size: number): { text: string; tokens: number }[] {
  const chunks: { text: string; tokens: number }[] = [];
  for (let start = 0; start < tokens.length; ) {
    let end = Math.min(start + size, tokens.length);
    let text = decode(tokens.slice(start, end));
    while (text.endsWith('\uFFFD') && end < tokens.length) text = decode(tokens.slice(start, ++end));
    chunks.push({ text, tokens: end - start });
    start = end;
  }
  return chunks;
}

/** OpenAI's prompt count: 3 per message, its role and content, 3 to prime the reply. */
function promptTokensOf(body: Record<string, unknown>): number {
  const messages = body.messages as { role: string; content: string }[];
  return (
    3 + messages.reduce((sum, m) => sum + 3 + encode(m.role).length + encode(m.content, PLAIN).length, 0)
  );
}

/** Each choice answers a different text (choice i starts i paragraphs in), up to max tokens. */
const ANSWERS = [MIXED, `${RUSSIAN}\n\n${MIXED}`, `${ENGLISH}\n\n${RUSSIAN}`];

function honestUpstream(behaviour: Behaviour, log: Generated[]) {
  return async (request: RecordedRequest, res: ServerResponse) => {
    const body = request.body;
    const n = Number(body.n ?? 1);
    const max = Number(body.max_completion_tokens ?? body.max_tokens ?? 1_000_000);
    let finish!: () => void;
    const generated: Generated = {
      promptTokens: promptTokensOf(body),
      completionTokens: 0,
      inFlight: behaviour.chunkTokens * n,
      finished: new Promise((resolve) => {
        finish = resolve;
      }),
    };
    log.push(generated);
    const choices = Array.from({ length: n }, (_, i) =>
      chunked(encode(ANSWERS[i % ANSWERS.length], PLAIN).slice(0, max), behaviour.chunkTokens),
    );
    let closed = false;
    res.on('close', () => {
      closed = true;
      finish();
    });
    const send = (data: unknown) =>
      new Promise<void>((resolve) => res.write(`data: ${JSON.stringify(data)}\n\n`, () => resolve()));
    const frame = (choices: unknown[], extra: Record<string, unknown> = {}) => ({
      id: 'chatcmpl-honest',
      object: 'chat.completion.chunk',
      created: 1_700_000_000,
      model: UPSTREAM_MODEL,
      choices,
      ...extra,
    });
    sseHead(res);
    await send(frame(choices.map((_, index) => ({ index, delta: { role: 'assistant', content: '' } }))));
    const steps = Math.max(...choices.map((c) => c.length));
    for (let step = 0; step < steps && !closed; step++) {
      if (behaviour.breakAfter !== undefined && step === behaviour.breakAfter) {
        res.destroy();
        return;
      }
      for (const [index, chunks] of choices.entries()) {
        const piece = chunks[step];
        if (!piece || closed) continue;
        generated.completionTokens += piece.tokens;
        await send(frame([{ index, delta: { content: piece.text }, finish_reason: null }]));
      }
      if (behaviour.paceMs > 0) await sleep(behaviour.paceMs);
      else await new Promise((resolve) => setImmediate(resolve));
    }
    if (closed) return;
    await send(frame(choices.map((_, index) => ({ index, delta: {}, finish_reason: 'stop' }))));
    await send(
      frame([], {
        usage: {
          prompt_tokens: generated.promptTokens,
          completion_tokens: generated.completionTokens,
          total_tokens: generated.promptTokens + generated.completionTokens,
        },
      }),
    );
    res.end('data: [DONE]\n\n');
  };
}

let fake: FakeOpenAi;
let claude: FakeAnthropic;
let app: TestApp;
let baseURL: string;

let providersFile: string;

beforeAll(async () => {
  fake = await startFakeOpenAi();
  claude = await new FakeAnthropic('sk-ant-test').start();
  providersFile = join(mkdtempSync(join(tmpdir(), 'gengate-honest-')), 'providers.json');
  writeFileSync(
    providersFile,
    JSON.stringify({
      providers: {
        openai: { type: 'openai', base_url: fake.baseUrl, api_key: 'sk-upstream' },
        claude: { type: 'anthropic', base_url: claude.origin, api_key: 'sk-ant-test' },
      },
      routes: {
        'gpt-4o': { provider: 'openai', model: UPSTREAM_MODEL },
        'claude-sonnet-4-5': { provider: 'claude', model: 'claude-sonnet-4-5-20250929' },
      },
    }),
  );
});

afterAll(async () => {
  await fake.close();
  await claude.close();
});

const client = (key: TestKey) => new OpenAI({ apiKey: key.secret, baseURL, maxRetries: 0 });
const ask = { model: 'gpt-4o', messages: [{ role: 'user' as const, content: 'Write it all out.' }] };

/** Reads `limit` content chunks (all when absent), then leaves. */
async function read(key: TestKey, extra: Record<string, unknown>, limit = Number.POSITIVE_INFINITY) {
  const stream = await client(key).chat.completions.create({ ...ask, ...extra, stream: true } as never);
  let contentChunks = 0;
  const error = await (async () => {
    for await (const chunk of stream as unknown as AsyncIterable<OpenAI.ChatCompletionChunk>) {
      if (chunk.choices.some((c) => c.delta?.content)) contentChunks++;
      if (contentChunks >= limit) break;
    }
  })().catch((e: unknown) => e);
  return { contentChunks, error };
}

/** The key's one settled request, and the check that its charge is its usage priced. */
async function charged(key: TestKey) {
  const [row] = await settledUsage(app, key.accountId, key.keyId, 15_000);
  const cost = await expectedChatCost(app, 'gpt-4o', row.input_tokens, row.output_tokens);
  expect(row.cost).toBe(cost);
  expect(await balanceOf(app, key.keyId)).toEqual({ balance: 100_000_000 - cost, held: 0 });
  return row;
}

describe.each(ENGINES)('on %s', (engine) => {
  beforeAll(async () => {
    app = await createTestApp({ engine, config: { providersFile } });
    baseURL = `${await listenOnLoopback(app)}/v1`;
  });

  afterEach(async () => {
    app.ctx.chat.cutStreamDrainMs = DEFAULT_CUT_STREAM_DRAIN_MS;
    fake.requests.length = 0;
    expect(await checkLedger(app.ctx.storage.db)).toEqual([]);
  });

  afterAll(async () => {
    await app.dispose();
  });

  describe('chat streams charged from an upstream that honours n and sends several tokens per chunk', () => {
    it.each([
      { n: 1, chunkTokens: 1 },
      { n: 1, chunkTokens: 6 },
      { n: 3, chunkTokens: 4 },
    ])(
      'a whole stream (n $n, $chunkTokens tokens a chunk) is charged its usage exactly',
      async ({ n, chunkTokens }) => {
        const log: Generated[] = [];
        fake.handle = honestUpstream({ chunkTokens, paceMs: 0 }, log);
        const key = await app.newKey({ balanceRub: 100 });
        const { error } = await read(key, { n, max_tokens: 1500 });
        expect(error).toBeUndefined();
        const row = await charged(key);
        expect(row.status).toBe('completed');
        expect([row.input_tokens, row.output_tokens]).toEqual([log[0].promptTokens, log[0].completionTokens]);
        expect(row.output_tokens).toBeGreaterThan(n * 1000); // every choice is billed, not just the first
      },
    );

    it.each([1, 5, 40])(
      'a stream the client leaves after %i chunks is read on to the usage and charged it exactly',
      async (limit) => {
        const log: Generated[] = [];
        fake.handle = honestUpstream({ chunkTokens: 5, paceMs: 1 }, log);
        const key = await app.newKey({ balanceRub: 100 });
        const { contentChunks } = await read(key, { n: 2, max_tokens: 400 }, limit);
        expect(contentChunks).toBe(limit);
        await log[0].finished;
        const row = await charged(key);
        expect(row.status).toBe('cancelled');
        expect([row.input_tokens, row.output_tokens]).toEqual([log[0].promptTokens, 800]);
      },
    );

    it.each([3, 20, 60])(
      'past the drain bound (client gone after %i chunks) the text read is counted: the upstream bill within the chunks in flight',
      async (limit) => {
        const log: Generated[] = [];
        fake.handle = honestUpstream({ chunkTokens: 7, paceMs: 4 }, log);
        app.ctx.chat.cutStreamDrainMs = 60;
        const key = await app.newKey({ balanceRub: 100 });
        await read(key, { n: 2 }, limit);
        await log[0].finished;
        const row = await charged(key);
        const upstream = log[0];
        expect(row.status).toBe('cancelled');
        expect(row.input_tokens).toBe(upstream.promptTokens);
        // Read on for up to 60 ms after the client left; the upstream was stopped long before its end.
        expect(row.output_tokens).toBeGreaterThanOrEqual(limit * 7);
        expect(upstream.completionTokens).toBeLessThan(2000);
        expect(Math.abs(row.output_tokens - upstream.completionTokens)).toBeLessThanOrEqual(
          upstream.inFlight,
        );
      },
    );

    it.each([2, 15, 50])(
      'a stream the upstream breaks off after %i chunks is charged the text it sent, exactly',
      async (breakAfter) => {
        const log: Generated[] = [];
        fake.handle = honestUpstream({ chunkTokens: 3, paceMs: 0, breakAfter }, log);
        const key = await app.newKey({ balanceRub: 100 });
        const { error } = await read(key, { n: 3 });
        expect(error).toBeInstanceOf(OpenAI.APIError);
        const row = await charged(key);
        expect(row.status).toBe('failed');
        expect([row.input_tokens, row.output_tokens]).toEqual([log[0].promptTokens, log[0].completionTokens]);
      },
    );
  });

  describe('Claude streams (several words per text delta)', () => {
    const words = `${ENGLISH}\n\n${RUSSIAN}`;
    // What Anthropic would report; unknown to us offline, so a plausible figure (o200k × 1.2).
    const claudeTokens = Math.ceil(encode(words, PLAIN).length * 1.2);

    it('whole, and cut by the client, are charged the usage Anthropic reports', async () => {
      for (const limit of [Number.POSITIVE_INFINITY, 4]) {
        claude.script({
          content: [{ type: 'text', text: words }],
          usage: { input_tokens: 14, output_tokens: claudeTokens },
        });
        const key = await app.newKey({ balanceRub: 100 });
        const stream = await client(key).chat.completions.create({
          model: 'claude-sonnet-4-5',
          messages: [{ role: 'user', content: 'Write it all out.' }],
          stream: true,
        });
        let seen = 0;
        for await (const chunk of stream) {
          if (chunk.choices[0]?.delta.content) seen++;
          if (seen >= limit) break;
        }
        const [row] = await settledUsage(app, key.accountId, key.keyId, 15_000);
        expect([row.input_tokens, row.output_tokens]).toEqual([14, claudeTokens]);
        expect(row.cost).toBe(await expectedChatCost(app, 'claude-sonnet-4-5', 14, claudeTokens));
      }
    });

    it('broken off by the upstream, is charged an upper bound of the text delivered', async () => {
      claude.script({
        content: [{ type: 'text', text: words }],
        usage: { input_tokens: 14, output_tokens: claudeTokens },
        errorAfterDeltas: 120,
      });
      const key = await app.newKey({ balanceRub: 100 });
      const stream = await client(key).chat.completions.create({
        model: 'claude-sonnet-4-5',
        messages: [{ role: 'user', content: 'Write it all out.' }],
        stream: true,
      });
      const delivered: string[] = [];
      await (async () => {
        for await (const chunk of stream)
          if (chunk.choices[0]?.delta.content) delivered.push(chunk.choices[0].delta.content);
      })().catch(() => undefined);
      expect(delivered).toHaveLength(120);
      const text = delivered.join('');
      const [row] = await settledUsage(app, key.accountId, key.keyId);
      expect(row.status).toBe('failed');
      // The prompt as Anthropic reported it at message_start; the output counted by the gateway.
      expect(row.input_tokens).toBe(14);
      expect(row.output_tokens).toBe(await countTokens('bound', [text]));
      // Above Claude's count as far as published comparisons go (up to 1.3× o200k), below the bytes.
      expect(row.output_tokens).toBeGreaterThanOrEqual(Math.ceil(encode(text, PLAIN).length * 1.3));
      expect(row.output_tokens).toBeLessThanOrEqual(Buffer.byteLength(text));
      expect(row.cost).toBe(
        await expectedChatCost(app, 'claude-sonnet-4-5', row.input_tokens, row.output_tokens),
      );
    });
  });
});
