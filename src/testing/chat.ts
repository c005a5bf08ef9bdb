// Helpers for chat tests: the exact expected cost of a request, and waiting for its settlement.
import { chatCost } from '../domain/billing/chat-cost.js';
import { coefficientToPpm } from '../domain/billing/money.js';
import { estimatePromptTokens, measurePrompt } from '../domain/chat/prompt-size.js';
import { parseChatRequest } from '../domain/chat/request.js';
import { countPromptTokens, countTokens, tokenizerFamily } from '../domain/chat/token-count.js';
import type { UsageRow } from '../storage/repositories/usage.js';
import type { TestApp } from './app.js';

/** (prompt × input price + completion × output price) × coefficient, from the catalog's prices. */
export async function expectedChatCost(
  app: TestApp,
  modelId: string,
  prompt: number,
  completion: number,
  coefficient = 1,
): Promise<number> {
  const model = await app.ctx.catalog.get(modelId);
  if (!model || model.priceMicro === null || model.priceOutputMicro === null)
    throw new Error(`no prices for ${modelId}`);
  return chatCost(prompt, completion, {
    inputPerMillion: model.priceMicro,
    outputPerMillion: model.priceOutputMicro,
    coefficientPpm: coefficientToPpm(coefficient),
  });
}

/** The prompt estimate a cut stream is billed with (and the simulator's prompt_tokens). */
export function promptEstimateOf(body: Record<string, unknown>): number {
  return estimatePromptTokens(measurePrompt(parseChatRequest(body)));
}

/**
 * What a stream that ended without the upstream's usage is billed (chat-call.ts): its prompt and
 * the output read (one text per choice), tokenized for `upstreamModel`'s family.
 */
export async function countedUsageOf(
  upstreamModel: string,
  body: Record<string, unknown>,
  outputs: string[],
): Promise<{ prompt: number; completion: number }> {
  const family = tokenizerFamily(upstreamModel);
  const request = parseChatRequest(body);
  return {
    prompt: await countPromptTokens(family, request.messages, [
      body.tools,
      body.functions,
      body.response_format,
    ]),
    completion: await countTokens(family, outputs),
  };
}

export async function balanceOf(app: TestApp, keyId: number): Promise<{ balance: number; held: number }> {
  const row = await app.ctx.storage.keys.balanceOf(keyId);
  if (!row) throw new Error(`key ${keyId} not found`);
  return row;
}

/** The key's usage rows once none is pending any more (a stream settles after the client has gone). */
export async function settledUsage(
  app: TestApp,
  accountId: number,
  keyId: number,
  timeoutMs = 5000,
): Promise<UsageRow[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows = await app.ctx.storage.usage.listForAccount(accountId, { keyId });
    if (rows.length > 0 && rows.every((row) => row.status !== 'pending')) return rows;
    if (Date.now() > deadline)
      throw new Error(`usage still pending after ${timeoutMs} ms: ${JSON.stringify(rows)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
