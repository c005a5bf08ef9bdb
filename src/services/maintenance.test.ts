// Maintenance mode is shared through the settings table: a change made by another process (the CLI)
// reaches a running server within its refresh interval, without a query on every request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Storage } from '../storage/storage.js';
import { openTestDb, type TestDb } from '../testing/db.js';
import { MaintenanceService } from './maintenance.js';

describe('MaintenanceService', () => {
  let db: TestDb;
  let storage: Storage;
  beforeAll(async () => {
    db = await openTestDb('sqlite');
    storage = Storage.from(db);
  });
  afterAll(() => db.dispose());

  it('is off on a fresh database', async () => {
    expect(await new MaintenanceService(storage, { now: () => 0 }).isEnabled()).toBe(false);
  });

  it("sees another process's change within the refresh interval, and reads the table at most once per interval", async () => {
    let now = 1_000_000;
    const clock = { now: () => now };
    let reads = 0;
    const counting = new Storage(storage.db, storage.engine);
    const get = counting.settings.get.bind(counting.settings);
    counting.settings.get = async (key: string) => {
      reads++;
      return get(key);
    };
    const server = new MaintenanceService(counting, clock, 1000);
    const cli = new MaintenanceService(storage, clock, 1000);

    expect(await server.isEnabled()).toBe(false);
    await cli.set(true);
    now += 500;
    for (let i = 0; i < 10; i++) expect(await server.isEnabled()).toBe(false);
    expect(reads).toBe(1);
    now += 500;
    expect(await server.isEnabled()).toBe(true);
    expect(reads).toBe(2);
    await cli.set(false);
    now += 1000;
    expect(await server.isEnabled()).toBe(false);
  });

  it('applies its own change at once', async () => {
    const clock = { now: () => 5 };
    const service = new MaintenanceService(storage, clock, 60_000);
    expect(await service.set(true)).toBe(true);
    expect(await service.isEnabled()).toBe(true);
    expect(await service.set(false)).toBe(false);
    expect(await service.isEnabled()).toBe(false);
  });
});
