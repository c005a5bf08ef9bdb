// The accounts behind the model routes: which route a submit tries first (weights), whether an
// account may take a task now (its health, its max_concurrency), and what each outcome says about
// the account. The task runner asks this pool and never names a provider. State lives in the
// database (storage/repositories/provider-accounts.ts), shared by every worker process.
//
// Only PROVIDERS_FILE accounts are pooled: the built-in simulator (no entry in the file) is always
// admitted and costs no database write, as before. A `type: simulator` entry gets places
// (max_concurrency) but no health: its failures are scripted per task by the prompt.
import {
  type AccountHealth,
  type AccountState,
  type Admission,
  admission,
  afterOutcome,
  afterRecheck,
  type BreakerSettings,
  claimProbe,
  freshHealth,
  recheckDue,
  verdictOf,
} from '../domain/providers/breaker.js';
import { orderRoutes } from '../domain/providers/route-order.js';
import type { ProviderCheck } from '../providers/task-provider.js';
import type { ResolvedRoute, TaskProviderRegistry } from '../providers/task-registry.js';
import type { ProviderAccountsRepository, StoredHealth } from '../storage/repositories/provider-accounts.js';
import type { Clock } from './clock.js';

/** Whether a submit may go to an account now. */
export type AdmitResult =
  | { status: 'admitted' }
  /** At its max_concurrency: counts as busy (next route, else re-queued). */
  | { status: 'busy' }
  /** Its breaker is open (cooling) or it is down: skipped. */
  | { status: 'unavailable'; state: Exclude<AccountState, 'up'> };

/** One account as GET /admin/providers and the console show it. */
export interface AccountStatus {
  name: string;
  type: string;
  state: AccountState;
  in_flight: number;
  max_concurrency: number | null;
  last_error: string | null;
  /** ISO 8601: the last re-check of a down account, or the last change of state; null: never. */
  checked_at: string | null;
}

/** How many times a compare-and-set is retried against concurrent writers before giving up. */
const CAS_ATTEMPTS = 25;

export class ProviderPool {
  private ensured: Promise<void> | undefined;
  private sweptAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly registry: TaskProviderRegistry,
    private readonly repo: ProviderAccountsRepository,
    private readonly clock: Clock,
    readonly settings: BreakerSettings,
    private readonly random: () => number = Math.random,
  ) {}

  /** True for a PROVIDERS_FILE account (places are kept for it). */
  pooled(name: string): boolean {
    return this.registry.config.providers.has(name);
  }

  /**
   * True when the account's health is tracked: every pooled account but the simulator's, whose
   * failures are scripted per task by the prompt and say nothing about an account.
   */
  private tracked(name: string): boolean {
    const settings = this.registry.config.providers.get(name);
    return settings !== undefined && settings.type !== 'simulator';
  }

  /** The routes in the order this submit tries them (weighted groups shuffled by weight). */
  order(routes: ResolvedRoute[]): ResolvedRoute[] {
    return orderRoutes(routes, this.random);
  }

  private ensure(): Promise<void> {
    this.ensured ??= this.repo
      .ensure([...this.registry.config.providers.keys()], freshHealth(this.clock.now()))
      .catch((error) => {
        this.ensured = undefined;
        throw error;
      });
    return this.ensured;
  }

  private async read(name: string): Promise<StoredHealth> {
    await this.ensure();
    const stored = await this.repo.get(name);
    if (stored) return stored;
    // A row deleted by hand: start it again.
    this.ensured = undefined;
    await this.ensure();
    return (await this.repo.get(name)) ?? { name, version: 0, health: freshHealth(this.clock.now()) };
  }

  /** Applies `change` to the account's row, retried against concurrent writers. */
  private async update(
    name: string,
    change: (health: AccountHealth) => AccountHealth,
  ): Promise<AccountHealth> {
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const stored = await this.read(name);
      const next = change(stored.health);
      if (next === stored.health) return next;
      if (await this.repo.compareAndSet(name, stored.version, next)) return next;
    }
    throw new Error(`provider health of ${name}: too many concurrent writers`);
  }

  /**
   * Asks whether `taskId` may be submitted to account `name` now; when admitted, the task holds a
   * place there until release() (or until it is no longer processing). `ignoreDown` admits an
   * account marked down: the runner's last resort when no other account can take the task.
   */
  async admit(name: string, taskId: string, options: { ignoreDown?: boolean } = {}): Promise<AdmitResult> {
    if (!this.pooled(name)) return { status: 'admitted' };
    const now = this.clock.now();
    const cap = this.registry.config.providers.get(name)?.maxConcurrency;
    if (!this.tracked(name))
      return (await this.repo.acquireSlot(name, taskId, cap, now))
        ? { status: 'admitted' }
        : { status: 'busy' };
    const { health } = await this.read(name);
    // A down account tried as the last resort (no other account left) only needs a place.
    const verdict: Admission =
      options.ignoreDown && health.state === 'down' ? 'pass' : admission(health, now, this.settings);
    if (verdict === 'skip')
      return { status: 'unavailable', state: health.state === 'up' ? 'cooling' : health.state };
    if (!(await this.repo.acquireSlot(name, taskId, cap, now))) return { status: 'busy' };
    if (verdict === 'pass') return { status: 'admitted' };
    // Cooling and due: one task probes. Of two workers racing for it, the compare-and-set picks one.
    let won = false;
    await this.update(name, (current) => {
      won = admission(current, now, this.settings) === 'probe';
      return won ? claimProbe(current, taskId, now) : current;
    });
    if (won) return { status: 'admitted' };
    await this.repo.releaseSlot(taskId);
    return { status: 'unavailable', state: 'cooling' };
  }

  /**
   * What a submit's outcome says about the account. A refused submit (nothing started) gives its
   * place back; a job, a result or an uncertain answer keeps it while the task is processing.
   */
  async recordSubmit(
    name: string,
    taskId: string,
    outcome: { status: string; failure?: { kind: string; detail?: string }; detail?: string },
  ): Promise<void> {
    if (!this.pooled(name)) return;
    const started =
      outcome.status === 'submitted' || outcome.status === 'succeeded' || outcome.status === 'uncertain';
    if (!started) await this.repo.releaseSlot(taskId);
    if (!this.tracked(name)) return;
    const verdict = verdictOf(outcome);
    if (verdict === 'neutral') return;
    const detail = outcome.failure?.detail ?? outcome.detail ?? outcome.failure?.kind ?? outcome.status;
    const now = this.clock.now();
    await this.update(name, (health) => afterOutcome(health, verdict, detail, now, this.settings, taskId));
  }

  /** A poll refused our credentials or funds: the account is down (the job's own fate is the runner's). */
  async recordPollRefusal(name: string, failure: { kind: string; detail?: string }): Promise<void> {
    if (!this.tracked(name) || verdictOf({ status: 'failed', failure }) !== 'down') return;
    const now = this.clock.now();
    await this.update(name, (health) =>
      afterOutcome(health, 'down', failure.detail ?? failure.kind, now, this.settings),
    );
  }

  /** Gives back the place a task holds (re-queued or final); no write without pooled accounts. */
  async release(taskId: string): Promise<void> {
    if (this.registry.config.providers.size > 0) await this.repo.releaseSlot(taskId);
  }

  /**
   * Re-checks every down account that is due, with the same call as `gengate providers check`. Each
   * account is re-checked by one process per PROVIDER_RECHECK_MS: the process that moves its
   * checked_at first runs the check. Returns the accounts that came back up.
   */
  async recheckDown(check: (name: string) => Promise<ProviderCheck>): Promise<string[]> {
    await this.ensure();
    const now = this.clock.now();
    const back: string[] = [];
    for (const stored of await this.repo.all()) {
      if (!this.tracked(stored.name) || !recheckDue(stored.health, now, this.settings)) continue;
      const claimed = await this.repo.compareAndSet(stored.name, stored.version, {
        ...stored.health,
        checkedAt: now,
      });
      if (!claimed) continue;
      let result: ProviderCheck;
      try {
        result = await check(stored.name);
      } catch (error) {
        result = { reachable: false, authOk: false, detail: (error as Error).message };
      }
      const after = await this.update(stored.name, (health) =>
        afterRecheck(health, result, this.clock.now()),
      );
      if (after.state === 'up') back.push(stored.name);
    }
    // Places left by workers that died: at most once per interval, whichever process gets there.
    if (now - this.sweptAt >= this.settings.recheckMs) {
      this.sweptAt = now;
      await this.repo.sweepSlots();
    }
    return back;
  }

  /**
   * The operator's "run a check" (console): runs `check` for one account now and, when the account
   * is down and the check accepts it, brings it up at once. Returns the check's answer.
   */
  async checkNow(name: string, check: (name: string) => Promise<ProviderCheck>): Promise<ProviderCheck> {
    const result = await check(name);
    if (this.tracked(name))
      await this.update(name, (health) => afterRecheck(health, result, this.clock.now()));
    return result;
  }

  /** Every PROVIDERS_FILE account with its state and in-flight count. */
  async status(): Promise<AccountStatus[]> {
    await this.ensure();
    const [rows, inFlight] = await Promise.all([this.repo.all(), this.repo.inFlight()]);
    const byName = new Map(rows.map((row) => [row.name, row.health]));
    const now = this.clock.now();
    return [...this.registry.config.providers.values()].map((settings) => {
      const health = byName.get(settings.name) ?? freshHealth(now);
      return {
        name: settings.name,
        type: settings.type,
        state: health.state,
        in_flight: inFlight.get(settings.name) ?? 0,
        max_concurrency: settings.maxConcurrency ?? null,
        last_error: health.lastError,
        checked_at: health.checkedAt === null ? null : new Date(health.checkedAt).toISOString(),
      };
    });
  }
}
