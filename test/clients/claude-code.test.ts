// Claude Code itself (the native binary of @anthropic-ai/claude-code, installed by
// scripts/test-clients.sh into .clients/) pointed at a listening gengate with ANTHROPIC_BASE_URL and
// a gengate key as ANTHROPIC_AUTH_TOKEN, the Claude models routed to the loopback Anthropic fake:
// a plain answer, and a tool loop in which the fake asks for Read of a file and answers with its
// content; then the same loop with gpt-4o, translated to the loopback OpenAI fake. Every request Claude Code sends goes through POST /v1/messages (and count_tokens), is
// billed exactly, and the ledger check is clean.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../../src/storage/ledger/ledger-check.js';
import { createTestApp, listenOnLoopback, type TestApp, type TestKey } from '../../src/testing/app.js';
import { balanceOf, settledUsage } from '../../src/testing/chat.js';
import {
  chunk,
  done,
  event,
  type FakeOpenAi,
  sseHead,
  startFakeOpenAi,
  usageChunk,
} from '../../src/testing/fake-openai.js';
import { FakeAnthropic, type FakeScript } from '../../src/testing/fakes/anthropic.js';

const BIN =
  process.env.CLAUDE_CODE_BIN ?? resolve('.clients/node_modules/@anthropic-ai/claude-code/bin/claude.exe');
if (!existsSync(BIN))
  throw new Error(
    `Claude Code is not installed at ${BIN}: run scripts/test-clients.sh (npm run test:clients)`,
  );

const UPSTREAM_KEY = 'sk-ant-api03-claude-code-fake';
const MODEL = 'claude-sonnet-4-5';
const SMALL_MODEL = 'claude-haiku-4-5';
const SECRET_LINE = 'The launch code is 7-4-1-9.';

let anthropic: FakeAnthropic;
let openai: FakeOpenAi;
let app: TestApp;
let origin: string;
let workdir: string;

/** The text of a user message's last block (string content or blocks). */
function lastUserBlock(body: Record<string, any>): Record<string, any> | undefined {
  const last = body.messages?.at(-1);
  if (last?.role !== 'user') return undefined;
  return typeof last.content === 'string' ? { type: 'text', text: last.content } : last.content.at(-1);
}

/**
 * Answers Claude Code's requests by what they are: the main conversation (it offers tools) asks
 * for Read when the prompt names a file and answers with the tool result's content; everything
 * else (titles, topic checks on the small model) gets a short text.
 */
function respond(body: Record<string, any>): FakeScript {
  const usage = {
    input_tokens: 1200,
    output_tokens: 20,
    cache_creation_input_tokens: 3000,
    cache_read_input_tokens: 0,
  };
  const hasRead = Array.isArray(body.tools) && body.tools.some((t: { name?: string }) => t.name === 'Read');
  const last = lastUserBlock(body);
  const results = (body.messages.at(-1)?.content ?? []) as Record<string, any>[];
  const result = Array.isArray(results) ? results.find((b) => b?.type === 'tool_result') : undefined;
  if (hasRead && result) {
    const content =
      typeof result.content === 'string'
        ? result.content
        : (result.content ?? []).map((b: { text?: string }) => b.text ?? '').join('');
    const line = content.match(/launch code is [\d-]+/)?.[0] ?? 'nothing found';
    return { content: [{ type: 'text', text: `The file says: ${line}` }], usage };
  }
  const text = JSON.stringify(last ?? '');
  if (hasRead && text.includes('notes.txt'))
    return {
      content: [
        { type: 'text', text: 'Reading the file.' },
        {
          type: 'tool_use',
          id: 'toolu_read_1',
          name: 'Read',
          input: { file_path: join(workdir, 'notes.txt') },
        },
      ],
      usage,
    };
  if (hasRead) return { content: [{ type: 'text', text: 'Hello from gengate.' }], usage };
  return { content: [{ type: 'text', text: 'Greeting' }], usage: { input_tokens: 50, output_tokens: 3 } };
}

beforeAll(async () => {
  anthropic = await new FakeAnthropic(UPSTREAM_KEY).start();
  anthropic.responder = respond;
  openai = await startFakeOpenAi();
  openai.handle = respondAsOpenAi;
  const dir = mkdtempSync(join(tmpdir(), 'gengate-claude-code-'));
  workdir = mkdtempSync(join(tmpdir(), 'gengate-claude-code-work-'));
  writeFileSync(join(workdir, 'notes.txt'), `Meeting notes.\n${SECRET_LINE}\n`);
  const providersFile = join(dir, 'providers.json');
  const routes = Object.fromEntries(
    ['claude-sonnet-4-5', 'claude-haiku-4-5', 'claude-opus-4-1', 'claude-sonnet-4', 'claude-3-5-haiku'].map(
      (id) => [id, { provider: 'claude', model: `${id}-upstream` }],
    ),
  );
  writeFileSync(
    providersFile,
    JSON.stringify({
      providers: {
        claude: { type: 'anthropic', base_url: anthropic.origin, api_key: UPSTREAM_KEY },
        oai: { type: 'openai', base_url: openai.baseUrl, api_key: 'sk-openai-fake' },
      },
      routes: { ...routes, 'gpt-4o': { provider: 'oai', model: 'gpt-4o-upstream' } },
    }),
  );
  app = await createTestApp({ config: { providersFile } });
  origin = await listenOnLoopback(app);
});

afterAll(async () => {
  if (app) {
    expect(await checkLedger(app.ctx.storage.db)).toEqual([]);
    await app.dispose();
  }
  await anthropic?.close();
  await openai?.close();
});

/** The same conversation as respond(), from a chat-completions upstream (a GPT model). */
function respondAsOpenAi(request: { body: Record<string, any> }, res: Parameters<FakeOpenAi['handle']>[1]) {
  const model = 'gpt-4o-upstream';
  const messages = request.body.messages as Record<string, any>[];
  const last = messages.at(-1)!;
  const hasRead = (request.body.tools ?? []).some(
    (t: { function?: { name?: string } }) => t.function?.name === 'Read',
  );
  sseHead(res);
  if (last.role === 'tool') {
    const text = typeof last.content === 'string' ? last.content : JSON.stringify(last.content);
    const line = text.match(/launch code is [\d-]+/)?.[0] ?? 'nothing found';
    event(res, chunk(model, { role: 'assistant', content: 'The file says: ' }));
    event(res, chunk(model, { content: line }));
    event(res, chunk(model, {}, 'stop'));
    event(res, usageChunk(model, 2000, 9));
  } else if (hasRead && JSON.stringify(last).includes('notes.txt')) {
    event(res, chunk(model, { role: 'assistant', content: null }));
    event(
      res,
      chunk(model, {
        tool_calls: [
          {
            index: 0,
            id: 'call_read_1',
            type: 'function',
            function: { name: 'Read', arguments: JSON.stringify({ file_path: join(workdir, 'notes.txt') }) },
          },
        ],
      }),
    );
    event(res, chunk(model, {}, 'tool_calls'));
    event(res, usageChunk(model, 1800, 15));
  } else {
    event(res, chunk(model, { role: 'assistant', content: hasRead ? 'Hello from gpt.' : 'Greeting' }));
    event(res, chunk(model, {}, 'stop'));
    event(res, usageChunk(model, 100, 3));
  }
  done(res);
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function claude(key: TestKey, prompt: string, extra: string[] = [], model = MODEL): Promise<Run> {
  const home = mkdtempSync(join(tmpdir(), 'gengate-claude-home-'));
  const child = spawn(BIN, ['-p', prompt, '--output-format', 'json', '--model', model, ...extra], {
    cwd: workdir,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      ANTHROPIC_BASE_URL: origin,
      ANTHROPIC_AUTH_TOKEN: key.secret,
      ANTHROPIC_DEFAULT_HAIKU_MODEL: SMALL_MODEL,
      ANTHROPIC_SMALL_FAST_MODEL: SMALL_MODEL,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b) => (stdout += b));
  child.stderr.on('data', (b) => (stderr += b));
  return new Promise((done) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

function resultOf(run: Run): Record<string, any> {
  if (run.code !== 0) throw new Error(`claude exited ${run.code}: ${run.stderr}\n${run.stdout}`);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!);
}

/** Every request settled, none pending, the balance moved by exactly the sum of the costs. */
async function expectBilled(key: TestKey, before: number) {
  const rows = await settledUsage(app, key.accountId, key.keyId, 10_000);
  expect(rows.every((r) => r.status === 'completed')).toBe(true);
  const total = rows.reduce((sum, r) => sum + r.cost, 0);
  expect(total).toBeGreaterThan(0);
  expect(await balanceOf(app, key.keyId)).toEqual({ balance: before - total, held: 0 });
  return rows;
}

describe('Claude Code through gengate', () => {
  it('a plain answer', async () => {
    const key = await app.newKey({ balanceRub: 1000 });
    const before = (await balanceOf(app, key.keyId)).balance;
    anthropic.server.requests.length = 0;
    const run = await claude(key, 'Say hello.');
    const result = resultOf(run);
    expect(result).toMatchObject({ type: 'result', is_error: false, result: 'Hello from gengate.' });
    const main = anthropic.calls.filter((c) => c.json?.model === `${MODEL}-upstream`);
    expect(main.length).toBeGreaterThanOrEqual(1);
    // Claude Code's request reached Anthropic whole: its system blocks, tools and stream flag.
    expect(main[0].json.stream).toBe(true);
    expect(main[0].json.tools.length).toBeGreaterThan(5);
    expect(main[0].headers['anthropic-version']).toMatch(/^\d{4}-\d\d-\d\d$/);
    const rows = await expectBilled(key, before);
    // The main turn: 1,200 input, 3,000 cache-write and 20 output tokens of claude-sonnet-4-5 =
    // 1,200×270 + 3,000×337.5 + 20×1,350 micro-rubles per 10^6 = 1,363,500 micro-rubles.
    expect(rows.filter((r) => r.model_id === MODEL).map((r) => r.cost)).toContain(1_363_500);
  });

  it('a tool loop: the model asks for Read, Claude Code runs it, the answer quotes the file', async () => {
    const key = await app.newKey({ balanceRub: 1000 });
    const before = (await balanceOf(app, key.keyId)).balance;
    anthropic.server.requests.length = 0;
    const run = await claude(key, 'What does notes.txt say about the launch code?', [
      '--allowedTools',
      'Read',
    ]);
    const result = resultOf(run);
    expect(result.is_error).toBe(false);
    expect(result.result).toBe('The file says: launch code is 7-4-1-9');
    const main = anthropic.calls.filter((c) => c.json?.model === `${MODEL}-upstream`);
    const withResult = main.find((c) => JSON.stringify(c.json.messages.at(-1)).includes('toolu_read_1'));
    expect(withResult).toBeDefined();
    expect(JSON.stringify(withResult!.json.messages.at(-1))).toContain('7-4-1-9');
    const rows = await expectBilled(key, before);
    expect(rows.filter((r) => r.model_id === MODEL).map((r) => r.cost)).toEqual([1_363_500, 1_363_500]);
  });

  it('a GPT model through the translation: the same tool loop, chat completions upstream', async () => {
    const key = await app.newKey({ balanceRub: 1000 });
    const before = (await balanceOf(app, key.keyId)).balance;
    openai.requests.length = 0;
    const run = await claude(
      key,
      'What does notes.txt say about the launch code?',
      ['--allowedTools', 'Read'],
      'gpt-4o',
    );
    const result = resultOf(run);
    expect(result.is_error).toBe(false);
    expect(result.result).toBe('The file says: launch code is 7-4-1-9');
    const main = openai.requests.filter((r) => Array.isArray(r.body.tools) && r.body.tools.length > 5);
    expect(main.length).toBeGreaterThanOrEqual(2);
    // Claude Code's 32,000 max_tokens, capped at gpt-4o's 16,384; its system blocks in one message.
    expect(main[0].body).toMatchObject({
      model: 'gpt-4o-upstream',
      stream: true,
      max_completion_tokens: 16_384,
    });
    expect((main[0].body.messages as { role: string }[])[0].role).toBe('system');
    const toolTurn = main.at(-1)!.body.messages as Record<string, any>[];
    expect(toolTurn.find((m) => m.role === 'tool')).toMatchObject({ tool_call_id: 'call_read_1' });
    const rows = await expectBilled(key, before);
    const costs = rows.filter((r) => r.model_id === 'gpt-4o').map((r) => r.cost);
    expect(costs.length).toBeGreaterThanOrEqual(2);
  });
});
