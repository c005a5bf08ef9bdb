// The operator's margin report: per UTC day, model and provider, what clients were charged and what
// the upstreams cost. Sealed days come from the margin_daily rollup (kept with the panel's usage
// rollups, analytics.ts); the days that can still change are aggregated live.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Database } from '../schema.js';
import {
  type AnalyticsRepository,
  type MarginCell,
  marginCells,
  mergeMarginCells,
  SEAL_AFTER_MS,
} from './analytics.js';

const DAY_MS = 86_400_000;

export class MarginRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly analytics: AnalyticsRepository,
  ) {}

  /** The cells of the days [fromDay, toDay) (days since the epoch), sorted by day, model, provider. */
  async report(fromDay: number, toDay: number, now: number): Promise<MarginCell[]> {
    const sealedEnd = Math.floor((now - SEAL_AFTER_MS) / DAY_MS);
    const split = Math.max(fromDay, Math.min(toDay, sealedEnd));
    const cells: MarginCell[] = [];
    if (split > fromDay) {
      await this.analytics.ensureAllSealed(fromDay, split, now);
      const rows = await this.db
        .selectFrom('margin_daily')
        .select([
          'day',
          'model_id',
          'provider',
          sql<number>`sum(requests)`.as('requests'),
          sql<number>`sum(revenue)`.as('revenue'),
          sql<number>`sum(cost)`.as('cost'),
          sql<number>`sum(costed)`.as('costed'),
        ])
        .where('day', '>=', fromDay)
        .where('day', '<', split)
        .groupBy(['day', 'model_id', 'provider'])
        .execute();
      cells.push(...mergeMarginCells(rows));
    }
    if (toDay > split) cells.push(...(await marginCells(this.db, split * DAY_MS, toDay * DAY_MS)));
    return cells.sort(
      (a, b) => a.day - b.day || a.model_id.localeCompare(b.model_id) || a.provider.localeCompare(b.provider),
    );
  }
}
