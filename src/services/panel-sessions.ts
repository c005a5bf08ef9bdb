// Panel sign-in: a one-time login link (15 minutes) exchanged for a session cookie (7 days). Only
// SHA-256 hashes of both tokens are stored, so a leaked row cannot be replayed.
import { createHash, randomBytes } from 'node:crypto';
import type { Storage } from '../storage/storage.js';
import type { Clock } from './clock.js';

export const LOGIN_LINK_TTL_MS = 15 * 60 * 1000;
export const SESSION_TTL_MS = 7 * 24 * 3600 * 1000;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

export class PanelSessions {
  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
  ) {}

  private async issue(accountId: number, kind: 'login_link' | 'session', ttlMs: number) {
    const token = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    await this.storage.db
      .insertInto('panel_tokens')
      .values({
        token_hash: hashToken(token),
        account_id: accountId,
        kind,
        expires_at: now + ttlMs,
        created_at: now,
      })
      .execute();
    return { token, expiresAt: now + ttlMs };
  }

  createLoginLink(accountId: number) {
    return this.issue(accountId, 'login_link', LOGIN_LINK_TTL_MS);
  }

  /** Spends a login link (once, before it expires) and opens a session; undefined when invalid. */
  async exchangeLoginLink(
    token: string,
    ip: string,
  ): Promise<{ session: string; accountId: number } | undefined> {
    const now = this.clock.now();
    const spent = await this.storage.db
      .updateTable('panel_tokens')
      .set({ used_at: now })
      .where('token_hash', '=', hashToken(token))
      .where('kind', '=', 'login_link')
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returning('account_id')
      .executeTakeFirst();
    if (!spent) return undefined;
    const { token: session } = await this.issue(spent.account_id, 'session', SESSION_TTL_MS);
    await this.storage.audit.append({
      accountId: spent.account_id,
      actor: 'owner',
      action: 'panel.login',
      ip,
      now,
    });
    return { session, accountId: spent.account_id };
  }

  async accountOf(session: string | undefined): Promise<number | undefined> {
    if (!session) return undefined;
    const row = await this.storage.db
      .selectFrom('panel_tokens')
      .select('account_id')
      .where('token_hash', '=', hashToken(session))
      .where('kind', '=', 'session')
      .where('expires_at', '>', this.clock.now())
      .executeTakeFirst();
    return row?.account_id;
  }

  async end(session: string): Promise<void> {
    await this.storage.db
      .deleteFrom('panel_tokens')
      .where('token_hash', '=', hashToken(session))
      .where('kind', '=', 'session')
      .execute();
  }
}
