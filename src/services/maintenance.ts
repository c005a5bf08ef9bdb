// Maintenance mode lives in the settings table; each process caches it for at most `refreshMs`.
import type { Storage } from '../storage/storage.js';
import type { Clock } from './clock.js';

const KEY = 'maintenance';

export class MaintenanceService {
  private enabled = false;
  private checkedAt = -Infinity;

  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
    private readonly refreshMs = 1000,
  ) {}

  async isEnabled(): Promise<boolean> {
    if (this.clock.now() - this.checkedAt >= this.refreshMs) {
      this.checkedAt = this.clock.now();
      this.enabled = (await this.storage.settings.get(KEY)) === 'on';
    }
    return this.enabled;
  }

  async set(enabled: boolean): Promise<boolean> {
    await this.storage.settings.set(KEY, enabled ? 'on' : 'off', this.clock.now());
    this.enabled = enabled;
    this.checkedAt = this.clock.now();
    return enabled;
  }
}
