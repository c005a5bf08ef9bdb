// Operator console sign-in: the ADMIN_TOKEN typed in a form, or a one-time link from
// `gengate console-link` (15 minutes), opens a session (12 hours, then sign in again). Only
// SHA-256 hashes of links and sessions are stored. Attempts are counted per address over the rate
// limiter's one-minute windows (shared across processes through Redis when configured); a refused
// attempt is written to the operator audit log.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { AppError } from '../../domain/errors.js';
import type { Storage } from '../../storage/storage.js';
import type { Clock } from '../clock.js';
import type { RateLimiter } from '../rate-limit.js';

export const CONSOLE_LINK_TTL_MS = 15 * 60 * 1000;
export const CONSOLE_SESSION_TTL_MS = 12 * 3600 * 1000;
/** Sign-in attempts (token form or link) per client address per minute. */
export const CONSOLE_SIGN_IN_ATTEMPTS_PER_MIN = 10;

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{20,100}$/;
const hashToken = (token: string) => createHash('sha256').update(`gengate-console\0${token}`).digest('hex');

function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

export class ConsoleSessions {
  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
    private readonly limiter: RateLimiter,
    private readonly adminToken: string | undefined,
  ) {}

  /** The console is on only with an ADMIN_TOKEN, like the admin API. */
  get enabled(): boolean {
    return Boolean(this.adminToken);
  }

  private async issue(kind: 'link' | 'session', ttlMs: number) {
    const token = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    await this.storage.operator.issueToken(hashToken(token), kind, now, now + ttlMs);
    return { token, expiresAt: now + ttlMs };
  }

  /** Counts one sign-in attempt of `ip`; refuses (429) past the limit. */
  async attempt(ip: string): Promise<void> {
    const decision = await this.limiter.consume(`console-sign-in:ip:${ip}`, CONSOLE_SIGN_IN_ATTEMPTS_PER_MIN);
    if (!decision.allowed)
      throw new AppError('rate_limited', 'Too many sign-in attempts: wait a minute and try again.', null, {
        headers: { 'Retry-After': String(decision.resetSeconds) },
      });
  }

  /** A one-time sign-in link's token (the CLI's console-link), audited. */
  async createLink(by: { actor: string; ip?: string | null }) {
    if (!this.adminToken) throw new AppError('not_found', 'The console is off: ADMIN_TOKEN is not set');
    const link = await this.issue('link', CONSOLE_LINK_TTL_MS);
    await this.storage.operator.appendAudit({ ...by, action: 'console.link_created', now: this.clock.now() });
    return link;
  }

  /** Whether a link would open a session, without spending it (GET and HEAD change nothing). */
  peekLink(token: string): Promise<boolean> {
    if (!TOKEN_SHAPE.test(token)) return Promise.resolve(false);
    return this.storage.operator.liveToken(hashToken(token), 'link', this.clock.now());
  }

  /** Signs in with the admin token or a link: a session, or undefined (refused, and audited). */
  async signIn(
    proof: { adminToken: string } | { link: string },
    ip: string,
  ): Promise<{ token: string; expiresAt: number } | undefined> {
    await this.attempt(ip);
    const now = this.clock.now();
    let ok = false;
    let method: string;
    if ('adminToken' in proof) {
      method = 'token';
      ok = Boolean(this.adminToken) && sameSecret(proof.adminToken, this.adminToken!);
    } else {
      method = 'link';
      ok =
        TOKEN_SHAPE.test(proof.link) &&
        (await this.storage.operator.spendToken(hashToken(proof.link), 'link', now));
    }
    if (!ok) {
      await this.storage.operator.appendAudit({
        actor: 'unknown',
        action: 'console.sign_in_refused',
        after: { method },
        ip,
        now,
      });
      return undefined;
    }
    const session = await this.issue('session', CONSOLE_SESSION_TTL_MS);
    await this.storage.operator.appendAudit({
      actor: 'operator',
      action: 'console.signed_in',
      after: { method },
      ip,
      now,
    });
    return session;
  }

  /** True for a live session token. */
  async valid(session: string | undefined): Promise<boolean> {
    if (!this.adminToken || !session || !TOKEN_SHAPE.test(session)) return false;
    return this.storage.operator.liveToken(hashToken(session), 'session', this.clock.now());
  }

  async end(session: string, ip: string): Promise<void> {
    await this.storage.operator.endSession(hashToken(session), this.clock.now());
    await this.storage.operator.appendAudit({
      actor: 'operator',
      action: 'console.signed_out',
      ip,
      now: this.clock.now(),
    });
  }
}
