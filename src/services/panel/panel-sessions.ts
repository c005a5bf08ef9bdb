// Panel sign-in tokens: one-time login links (15 minutes), sessions (7 days) and the short step
// between a first factor and the TOTP code (5 minutes). Only SHA-256 hashes of tokens are stored,
// so a leaked row cannot be replayed.
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { PanelTokensTable } from '../../storage/schema.js';
import type { Storage } from '../../storage/storage.js';
import type { Actor } from '../accounts.js';
import type { Clock } from '../clock.js';

export const LOGIN_LINK_TTL_MS = 15 * 60 * 1000;
export const SESSION_TTL_MS = 7 * 24 * 3600 * 1000;
export const SECOND_FACTOR_TTL_MS = 5 * 60 * 1000;

/** How the owner proved who they are: recorded in the sign-in's audit entry. */
export type SignInMethod = 'link' | 'telegram';

/** The second-factor step remembers the first factor in its kind, for the sign-in's audit entry. */
type TokenKind = 'login_link' | 'session' | `second_factor:${SignInMethod}`;
const SECOND_FACTOR_KINDS: TokenKind[] = ['second_factor:link', 'second_factor:telegram'];

/** panel_tokens with the kinds this service writes (the shared schema names only the first two). */
type TokenDb = Kysely<{ panel_tokens: Omit<PanelTokensTable, 'kind'> & { kind: TokenKind } }>;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** Tokens we hand out are 43 base64url characters; anything else is refused without a lookup. */
export const TOKEN_SHAPE = /^[A-Za-z0-9_-]{20,100}$/;

export class PanelSessions {
  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
  ) {}

  private db(): TokenDb {
    return this.storage.db as unknown as TokenDb;
  }

  private async issue(accountId: number, kind: TokenKind, ttlMs: number) {
    const token = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    await this.db()
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

  private async lookUp(token: string | undefined, kinds: TokenKind[]) {
    if (!token || !TOKEN_SHAPE.test(token)) return undefined;
    return this.db()
      .selectFrom('panel_tokens')
      .select(['account_id', 'kind'])
      .where('token_hash', '=', hashToken(token))
      .where('kind', 'in', kinds)
      .where('used_at', 'is', null)
      .where('expires_at', '>', this.clock.now())
      .executeTakeFirst();
  }

  private async live(token: string | undefined, kind: TokenKind): Promise<number | undefined> {
    const row = await this.lookUp(token, [kind]);
    return row === undefined ? undefined : Number(row.account_id);
  }

  /** Marks an unused, unexpired token used (once, even under concurrent requests). */
  private async spend(token: string, kinds: TokenKind[]): Promise<number | undefined> {
    if (!TOKEN_SHAPE.test(token)) return undefined;
    const now = this.clock.now();
    const spent = await this.db()
      .updateTable('panel_tokens')
      .set({ used_at: now })
      .where('token_hash', '=', hashToken(token))
      .where('kind', 'in', kinds)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returning('account_id')
      .executeTakeFirst();
    return spent === undefined ? undefined : Number(spent.account_id);
  }

  /** A one-time sign-in link's token; audited when `by` (who asked for it) is given. */
  async createLoginLink(accountId: number, by?: Actor) {
    const link = await this.issue(accountId, 'login_link', LOGIN_LINK_TTL_MS);
    if (by) {
      await this.storage.audit.append({
        accountId,
        ...by,
        action: 'login_link.created',
        now: this.clock.now(),
      });
    }
    return link;
  }

  /** The account a login link would open, without spending it (GET and HEAD change nothing). */
  peekLoginLink(token: string): Promise<number | undefined> {
    return this.live(token, 'login_link');
  }

  /** Spends a login link: its account, or undefined when unknown, used or expired. */
  spendLoginLink(token: string): Promise<number | undefined> {
    return this.spend(token, ['login_link']);
  }

  /** Opens a session for an owner who passed every factor, and audits the sign-in. */
  async openSession(accountId: number, ip: string, method: SignInMethod, secondFactor?: string) {
    const opened = await this.issue(accountId, 'session', SESSION_TTL_MS);
    await this.storage.audit.append({
      accountId,
      actor: 'owner',
      action: 'panel.login',
      details: secondFactor ? { method, second_factor: secondFactor } : { method },
      ip,
      now: this.clock.now(),
    });
    return opened;
  }

  /** The step between the first factor and the TOTP code: opens nothing but the code page. */
  openSecondFactor(accountId: number, method: SignInMethod) {
    return this.issue(accountId, `second_factor:${method}`, SECOND_FACTOR_TTL_MS);
  }

  async secondFactorAccount(
    token: string | undefined,
  ): Promise<{ accountId: number; method: SignInMethod } | undefined> {
    const row = await this.lookUp(token, SECOND_FACTOR_KINDS);
    if (row === undefined) return undefined;
    return {
      accountId: Number(row.account_id),
      method: row.kind.slice('second_factor:'.length) as SignInMethod,
    };
  }

  spendSecondFactor(token: string): Promise<number | undefined> {
    return this.spend(token, SECOND_FACTOR_KINDS);
  }

  accountOf(session: string | undefined): Promise<number | undefined> {
    return this.live(session, 'session');
  }

  async end(session: string): Promise<void> {
    await this.db()
      .deleteFrom('panel_tokens')
      .where('token_hash', '=', hashToken(session))
      .where('kind', '=', 'session')
      .execute();
  }

  /** Signs the owner out everywhere (every session of the account); returns how many ended. */
  async endAll(accountId: number): Promise<number> {
    const result = await this.db()
      .deleteFrom('panel_tokens')
      .where('account_id', '=', accountId)
      .where('kind', 'in', ['session', ...SECOND_FACTOR_KINDS])
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
