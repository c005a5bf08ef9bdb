// Upstream callbacks (POST /hooks/{provider}). Each task's callback URL carries our task id and a
// token (an HMAC of provider and task id under a secret kept in the database, the same for every
// process), so a callback that names a task proves it came from the URL we handed upstream. Where
// the provider signs its webhooks the adapter verifies that too. Either way a callback is only a
// hint to poll now: the result always comes from the provider's own API, so a duplicate or a forged
// body changes nothing.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHook } from '../providers/task-provider.js';
import type { TaskProviderRegistry } from '../providers/task-registry.js';
import type { Storage } from '../storage/storage.js';
import type { Clock } from './clock.js';
import type { TaskEvents } from './tasks/events.js';

const SECRET_SETTING = 'provider_hooks_secret';

export type HookResult =
  /** 200: the task will be polled now (or was already final, or is being worked on). */
  | { status: 'accepted'; polled: boolean }
  /** 401: a token or signature that does not verify. */
  | { status: 'forged' }
  /** 404: no such provider. */
  | { status: 'unknown_provider' };

export class ProviderHooks {
  private secret: Promise<Buffer> | undefined;

  constructor(
    private readonly deps: {
      storage: Storage;
      clock: Clock;
      providers: TaskProviderRegistry;
      events: TaskEvents;
      publicUrl: string;
    },
  ) {}

  private key(): Promise<Buffer> {
    this.secret ??= this.deps.storage.settings
      .getOrCreate(SECRET_SETTING, randomBytes(32).toString('base64url'), this.deps.clock.now())
      .then((value) => Buffer.from(value, 'base64url'));
    // A failed read is tried again next time rather than cached.
    this.secret.catch(() => {
      this.secret = undefined;
    });
    return this.secret;
  }

  private async token(provider: string, taskId: string): Promise<string> {
    return createHmac('sha256', await this.key())
      .update(`${provider}\n${taskId}`)
      .digest('base64url')
      .slice(0, 32);
  }

  /** The URL handed to the provider for one task. */
  async callbackUrl(provider: string, taskId: string): Promise<string> {
    const query = new URLSearchParams({ task: taskId, token: await this.token(provider, taskId) });
    return `${this.deps.publicUrl}/hooks/${encodeURIComponent(provider)}?${query}`;
  }

  private async tokenValid(provider: string, taskId: string, token: string): Promise<boolean> {
    const expected = Buffer.from(await this.token(provider, taskId));
    const given = Buffer.from(token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  async receive(providerName: string, hook: IncomingHook): Promise<HookResult> {
    const settings = this.deps.providers.config.providers.get(providerName);
    if (!settings || !this.deps.providers.hasAdapter(settings.type)) return { status: 'unknown_provider' };
    const provider = this.deps.providers.providerByName(providerName);
    const { task: taskId, token } = hook.query;
    // A task id in the query must come with its token: without one it is not ours.
    const tokenOk =
      taskId !== undefined && token !== undefined && (await this.tokenValid(providerName, taskId, token));
    if (taskId !== undefined && !tokenOk) return { status: 'forged' };
    const verdict = provider.receiveHook ? await provider.receiveHook(hook) : { status: 'accepted' as const };
    if (verdict.status === 'forged') return { status: 'forged' };
    const now = this.deps.clock.now();
    let polled = false;
    if (tokenOk && taskId !== undefined) {
      // Our URL names the task, so the job id in the body may fill in an uncertain submit's job.
      polled = await this.deps.storage.tasks.pollNow({ taskId }, { now, jobId: verdict.jobId });
    } else if (verdict.jobId !== undefined) {
      polled = await this.deps.storage.tasks.pollNow(
        { provider: providerName, jobId: verdict.jobId },
        { now },
      );
    }
    if (polled) this.deps.events.created();
    return { status: 'accepted', polled };
  }
}
