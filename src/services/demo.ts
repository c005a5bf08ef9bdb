// First start of an empty embedded database: a demo account and key with 1000 RUB, so that a new
// user can try the API at once. Never in production (config.demo is false there).
import type { AppContext } from '../context.js';
import { AppError } from '../domain/errors.js';

export const DEMO_MESSAGING_ID = 1;

export async function seedDemoAccount(ctx: AppContext): Promise<string | undefined> {
  if (!ctx.config.demo || (await ctx.storage.accounts.count()) > 0) return undefined;
  const by = { actor: 'system:demo' };
  let accountId: number;
  try {
    accountId = (await ctx.accounts.createAccount({ messaging_id: DEMO_MESSAGING_ID }, by)).id;
  } catch (error) {
    // Another process starting on the same empty database seeded it first: it prints the key.
    if (error instanceof AppError && error.code === 'account_exists') return undefined;
    throw error;
  }
  const { key, secret } = await ctx.accounts.createKey(accountId, { name: 'demo' }, by);
  await ctx.accounts.topup(key.id, 1000, 'demo credit', by);
  return secret;
}

export function demoBanner(secret: string, publicUrl: string): string {
  return [
    '',
    '  A demo account was created with a 1000 RUB key. The key is shown this once:',
    '',
    `    ${secret}`,
    '',
    '  Try it:',
    `    curl -s ${publicUrl}/me/balance -H "Authorization: Bearer ${secret}"`,
    `    curl -s ${publicUrl}/generate -H "Authorization: Bearer ${secret}" -H 'Content-Type: application/json' \\`,
    `      -d '{"params":{"model_name":"seedance-2","prompt":"a lighthouse at dawn","duration":5}}'`,
    '',
  ].join('\n');
}
