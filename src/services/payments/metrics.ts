// Metrics of money in: top-ups by method and outcome, money credited and refunded (integer
// micro-rubles), and how long a top-up took to settle, by what noticed it (a notification or the
// reconcile pass: reconcile's share and lag show lost notifications). docs/metrics.md lists them.
import { Counter, Histogram } from 'prom-client';
import type { Config } from '../../config.js';
import type { Metrics } from '../metrics.js';
import type { TopupEvents } from './topups.js';

/** Seconds from creation to settlement: a minute to a day. */
const SETTLE_BUCKETS = [10, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 86400];

const cache = new WeakMap<Metrics, TopupEvents>();

export function topupEvents(metrics: Metrics, config: Pick<Config, 'logLevel'>): TopupEvents {
  const known = cache.get(metrics);
  if (known) return known;
  const registers = [metrics.registry];
  const topups = new Counter({
    name: 'gengate_topups_total',
    help: 'Top-ups by card, by method and outcome (created, succeeded, canceled, refunded)',
    labelNames: ['method', 'outcome'],
    registers,
  });
  const credited = new Counter({
    name: 'gengate_topup_credited_microrubles_total',
    help: 'Money credited by paid top-ups, micro-rubles, by method',
    labelNames: ['method'],
    registers,
  });
  const refunded = new Counter({
    name: 'gengate_topup_refunded_microrubles_total',
    help: 'Money refunded to payers, micro-rubles, by method',
    labelNames: ['method'],
    registers,
  });
  const settleSeconds = new Histogram({
    name: 'gengate_topup_settle_seconds',
    help: 'Time from a top-up’s creation to its success or cancel, by what noticed it (notification, reconcile)',
    labelNames: ['method', 'source'],
    buckets: SETTLE_BUCKETS,
    registers,
  });
  const events: TopupEvents = {
    created: (method) => topups.inc({ method, outcome: 'created' }),
    settled: (method, outcome, amountMicro, source, lagMs) => {
      topups.inc({ method, outcome });
      if (outcome === 'succeeded') credited.inc({ method }, amountMicro);
      settleSeconds.observe({ method, source }, Math.max(0, lagMs) / 1000);
    },
    refunded: (method, amountMicro) => {
      topups.inc({ method, outcome: 'refunded' });
      refunded.inc({ method }, amountMicro);
    },
    warn: (message, detail) => {
      if (config.logLevel !== 'silent') console.warn(`[gengate] payments: ${message}`, detail ?? '');
    },
  };
  cache.set(metrics, events);
  return events;
}
