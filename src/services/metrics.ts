// Prometheus metrics. Each AppContext owns one Registry (a process builds one context, so one
// registry per process); other services add their metrics to `ctx.metrics.registry`. Node's default
// metrics are collected once per process and shared by every registry, because each collection
// starts its own event-loop monitor and GC observer that are never stopped.
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

export type WebhookOutcome = 'delivered' | 'failed_attempt' | 'undelivered';

let processDefaults: Registry | undefined;

function processDefaultMetrics(): Registry {
  if (!processDefaults) {
    processDefaults = new Registry();
    collectDefaultMetrics({ register: processDefaults });
  }
  return processDefaults;
}

export class Metrics {
  readonly registry: Registry = Registry.merge([processDefaultMetrics()]);

  /** Every recorded attempt: delivered or failed_attempt; undelivered once a delivery runs out of attempts. */
  readonly webhookDeliveries = new Counter({
    name: 'gengate_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome (undelivered: a delivery ran out of attempts)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  /** Every submit to an upstream, by its outcome (submitted, succeeded, busy, failed:<kind>, uncertain, not_sent). */
  readonly providerSubmits = new Counter({
    name: 'gengate_provider_submits_total',
    help: 'Submits of media tasks to upstream providers, by provider, model and outcome',
    labelNames: ['provider', 'model', 'outcome'] as const,
    registers: [this.registry],
  });

  /** Every task that ended at a provider: completed, or the failure kind. */
  readonly providerOutcomes = new Counter({
    name: 'gengate_provider_outcomes_total',
    help: 'Final outcomes of media tasks by provider, model and outcome (completed or the failure kind)',
    labelNames: ['provider', 'model', 'outcome'] as const,
    registers: [this.registry],
  });

  /** From the task's creation to its result, for completed tasks. */
  readonly providerTimeToResult = new Histogram({
    name: 'gengate_provider_time_to_result_seconds',
    help: 'Time from task creation to a completed result, by provider and model',
    labelNames: ['provider', 'model'] as const,
    buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1200],
    registers: [this.registry],
  });

  /** The Prometheus text exposition. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
