// Prometheus metrics. Each AppContext owns one Registry (a process builds one context, so one
// registry per process); other services add their metrics to `ctx.metrics.registry`. Node's default
// metrics are collected once per process and shared by every registry, because each collection
// starts its own event-loop monitor and GC observer that are never stopped.
import { Counter, collectDefaultMetrics, Registry } from 'prom-client';

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

  /** The Prometheus text exposition. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
