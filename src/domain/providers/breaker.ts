// The health of one provider account, as pure rules: a circuit breaker over its recent submits and
// a "down" state for an account the upstream refuses (auth or billing). The storage keeps one row
// per account, shared by every process; these functions say how a row answers a submit and how an
// outcome changes it.
//
//   up       submits flow. Each outcome lands in a fixed window (windowMs); once the window holds
//            minRequests outcomes and failurePercent of them failed, the breaker opens: cooling.
//   cooling  skipped until openUntil; then ONE task is let through as the probe (a probe that never
//            reports back frees its place after another cool-down). Its success closes the breaker
//            (up, window cleared); its failure opens it for another cool-down.
//   down     an auth or billing refusal. Skipped until a re-check (the same call as
//            `gengate providers check`) accepts the credentials; re-checked every recheckMs. When
//            no other account can take a task, the runner still tries it as the last resort, and a
//            job it takes brings it back up.

export type AccountState = 'up' | 'cooling' | 'down';

export interface BreakerSettings {
  /** Length of the window whose outcomes decide (ms). */
  windowMs: number;
  /** Outcomes the window needs before it can open the breaker. */
  minRequests: number;
  /** Share of failed outcomes (0–100) that opens the breaker. */
  failurePercent: number;
  /** How long an open breaker skips the account before one probe (ms). */
  cooldownMs: number;
  /** How often an account marked down is re-checked (ms). */
  recheckMs: number;
}

export const DEFAULT_BREAKER: BreakerSettings = {
  windowMs: 60_000,
  minRequests: 10,
  failurePercent: 50,
  cooldownMs: 30_000,
  recheckMs: 60_000,
};

export interface AccountHealth {
  state: AccountState;
  windowStart: number;
  windowTotal: number;
  windowFailures: number;
  /** cooling: when the probe may go. */
  openUntil: number | null;
  /** cooling: the task that holds the probe, and since when. */
  probeTask: string | null;
  probeAt: number | null;
  lastError: string | null;
  /** down: the last re-check; otherwise the last change of state. */
  checkedAt: number | null;
}

export function freshHealth(now: number): AccountHealth {
  return {
    state: 'up',
    windowStart: now,
    windowTotal: 0,
    windowFailures: 0,
    openUntil: null,
    probeTask: null,
    probeAt: null,
    lastError: null,
    checkedAt: null,
  };
}

/**
 * What a submit outcome says about the account (not about the client's request):
 *   success  it answered and took or judged the request (a job, a result, a params or content refusal);
 *   failure  5xx, overload, an unexplained upstream answer, a timeout or a broken connection;
 *   down     it refused our credentials or our account's funds;
 *   neutral  busy or rate-limited: full, not sick.
 */
export type Verdict = 'success' | 'failure' | 'down' | 'neutral';

export function verdictOf(outcome: { status: string; failure?: { kind: string } }): Verdict {
  switch (outcome.status) {
    case 'submitted':
    case 'succeeded':
      return 'success';
    case 'busy':
      return 'neutral';
    case 'uncertain':
    case 'not_sent':
      return 'failure';
    case 'failed': {
      const kind = outcome.failure?.kind;
      if (kind === 'auth' || kind === 'billing') return 'down';
      if (kind === 'params' || kind === 'rejected') return 'success';
      return 'failure';
    }
    default:
      return 'neutral';
  }
}

export type Admission = 'pass' | 'probe' | 'skip';

/** Whether a submit may go to the account now. A `probe` admission must be claimed (see claimProbe). */
export function admission(health: AccountHealth, now: number, settings: BreakerSettings): Admission {
  if (health.state === 'up') return 'pass';
  if (health.state === 'down') return 'skip';
  if (health.openUntil !== null && now < health.openUntil) return 'skip';
  const probeFree =
    health.probeTask === null || health.probeAt === null || now - health.probeAt >= settings.cooldownMs;
  return probeFree ? 'probe' : 'skip';
}

/** The row once `taskId` holds the probe of a cooling account. */
export function claimProbe(health: AccountHealth, taskId: string, now: number): AccountHealth {
  return { ...health, probeTask: taskId, probeAt: now };
}

/** The row after one outcome. `probeTask` is the task that reported it, when it held the probe. */
export function afterOutcome(
  health: AccountHealth,
  verdict: Verdict,
  detail: string | null,
  now: number,
  settings: BreakerSettings,
  taskId?: string,
): AccountHealth {
  if (verdict === 'neutral') return health;
  const error = detail ? detail.slice(0, 500) : null;
  if (verdict === 'down')
    return {
      ...freshHealth(now),
      state: 'down',
      lastError: error,
      checkedAt: now,
    };
  const isProbe = health.state === 'cooling' && taskId !== undefined && health.probeTask === taskId;
  if (health.state === 'cooling') {
    if (!isProbe) return health;
    if (verdict === 'success') return { ...freshHealth(now), lastError: health.lastError, checkedAt: now };
    return {
      ...health,
      openUntil: now + settings.cooldownMs,
      probeTask: null,
      probeAt: null,
      lastError: error,
    };
  }
  // A down account that took a job (tried as the last resort) works again; a failure changes nothing.
  if (health.state === 'down')
    return verdict === 'success'
      ? { ...freshHealth(now), lastError: health.lastError, checkedAt: now }
      : health;
  const expired = now - health.windowStart >= settings.windowMs;
  const base = expired ? { ...health, windowStart: now, windowTotal: 0, windowFailures: 0 } : health;
  const next: AccountHealth = {
    ...base,
    windowTotal: base.windowTotal + 1,
    windowFailures: base.windowFailures + (verdict === 'failure' ? 1 : 0),
    lastError: verdict === 'failure' ? error : base.lastError,
  };
  const opens =
    next.windowTotal >= settings.minRequests &&
    next.windowFailures * 100 >= settings.failurePercent * next.windowTotal;
  if (!opens) return next;
  return {
    ...next,
    state: 'cooling',
    openUntil: now + settings.cooldownMs,
    probeTask: null,
    probeAt: null,
    checkedAt: now,
  };
}

/** A re-check of a down account answered: up again when it reached the upstream and was accepted. */
export function afterRecheck(
  health: AccountHealth,
  check: { reachable: boolean; authOk: boolean; detail?: string },
  now: number,
): AccountHealth {
  if (health.state !== 'down') return health;
  if (check.reachable && check.authOk)
    return { ...freshHealth(now), lastError: health.lastError, checkedAt: now };
  return {
    ...health,
    checkedAt: now,
    lastError: check.detail ? check.detail.slice(0, 500) : health.lastError,
  };
}

/** A down account is due for its re-check. */
export function recheckDue(health: AccountHealth, now: number, settings: BreakerSettings): boolean {
  return (
    health.state === 'down' && (health.checkedAt === null || now - health.checkedAt >= settings.recheckMs)
  );
}
