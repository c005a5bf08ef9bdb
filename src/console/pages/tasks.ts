// Tasks: find one by id across accounts. The page shows its owner, model, provider and the
// provider's job id, its times and money (hold, capture or release, with when), what the upstream
// cost, and its webhook deliveries with a redeliver button.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { AppError } from '../../domain/errors.js';
import type { WebhookDeliveryRow } from '../../storage/repositories/webhooks.js';
import {
  badge,
  card,
  escapeHtml,
  flash,
  formatRub,
  formatTime,
  pageHeader,
  type Tone,
  table,
} from '../../web/html.js';
import { sendHtml } from '../../web/http.js';
import { CONSOLE_ROUTE } from '../console-context.js';
import { csrfField, renderConsolePage } from '../layout.js';
import { doneFlash, one } from './common.js';

/** The task runner's record of earlier stretches in processing that went back to the queue. */
function requeuesOf(providerState: string | null): [number, number][] {
  try {
    const requeued = (JSON.parse(providerState ?? '{}') as { requeued?: unknown }).requeued;
    return Array.isArray(requeued)
      ? requeued.filter(
          (r): r is [number, number] => Array.isArray(r) && r.length === 2 && r.every(Number.isFinite),
        )
      : [];
  } catch {
    return [];
  }
}

/** To the millisecond: the steps of a task are often within one second. */
const exactTime = (ms: number) => {
  const iso = new Date(ms).toISOString();
  return `<time datetime="${iso}">${iso.slice(0, 10)} ${iso.slice(11, 23)} UTC</time>`;
};

const STATUS_TONE: Record<string, Tone> = {
  completed: 'ok',
  failed: 'error',
  processing: 'info',
  pending: 'warn',
};

export function deliveriesTable(rows: WebhookDeliveryRow[], csrf: string, back: string): string {
  return table(
    [
      { label: 'Delivery' },
      { label: 'Status' },
      { label: 'Attempts', num: true },
      { label: 'Last answer' },
      { label: 'Next or done' },
      { label: '' },
    ],
    rows.map((d) => [
      `<code>${escapeHtml(d.id)}</code><br><span class="muted">${escapeHtml(d.url)}</span>`,
      badge(d.status, d.status === 'delivered' ? 'ok' : d.status === 'undelivered' ? 'error' : 'warn'),
      String(d.attempts),
      escapeHtml(d.last_status_code ?? d.last_error ?? '—'),
      d.status === 'delivered' ? formatTime(Number(d.delivered_at)) : formatTime(Number(d.next_attempt_at)),
      `<form method="post" action="/console/webhooks/${encodeURIComponent(d.id)}/redeliver">${csrf}<input type="hidden" name="back" value="${escapeHtml(back)}"><button class="btn btn-small" type="submit">Redeliver</button></form>`,
    ]),
    'No webhook for this task.',
  );
}

export function registerTaskPages(app: FastifyInstance, ctx: AppContext): void {
  const ops = ctx.operator.console;

  function searchForm(id = ''): string {
    return `<form method="get" action="/console/tasks" class="inline-form" role="search">
<label>Task id <input name="id" value="${escapeHtml(id)}" placeholder="0192f3a4-…" maxlength="40" required></label>
<button class="btn btn-primary" type="submit">Find</button></form>`;
  }

  const listPage = (request: FastifyRequest, reply: FastifyReply, message = '', status = 200, id = '') =>
    sendHtml(
      reply,
      status,
      renderConsolePage({
        title: 'Tasks',
        active: 'tasks',
        session: request.console,
        body: `${pageHeader('Tasks', 'Any account’s task by its id')}${message}${searchForm(id)}`,
      }),
    );

  app.get('/console/tasks', CONSOLE_ROUTE, async (request, reply) => {
    const id = (one((request.query as Record<string, unknown>).id) ?? '').trim();
    if (!id) return listPage(request, reply);
    try {
      const { task } = await ops.task(id);
      return reply.redirect(`/console/tasks/${task.id}`, 303);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return listPage(request, reply, flash('error', error.message), error.status, id);
    }
  });

  app.get<{ Params: { id: string } }>('/console/tasks/:id', CONSOLE_ROUTE, async (request, reply) => {
    const { task, ledger, deliveries, messagingId } = await ops.task(request.params.id);
    const csrf = csrfField(request.console);
    const providerCost =
      task.provider_cost === null || task.provider_cost === undefined ? null : Number(task.provider_cost);
    const facts = table(
      [{ label: 'Field' }, { label: 'Value' }],
      [
        ['Status', badge(task.status, STATUS_TONE[task.status] ?? 'muted')],
        [
          'Account',
          messagingId === null
            ? '—'
            : `<a href="/console/accounts/${messagingId}">${messagingId}</a> · key #${task.key_id}`,
        ],
        [
          'Model',
          `<code>${escapeHtml(task.model_id)}</code>${task.billing_model_id !== task.model_id ? ` billed as <code>${escapeHtml(task.billing_model_id)}</code>` : ''}`,
        ],
        ['Provider', escapeHtml(task.provider)],
        [
          'Provider job id',
          task.provider_job_id
            ? `<code>${escapeHtml(task.provider_job_id)}</code>`
            : '<span class="muted">none yet</span>',
        ],
        ['Held', formatRub(task.hold_amount)],
        ['Charged', task.cost === null ? '—' : formatRub(task.cost)],
        [
          'Provider cost',
          providerCost === null
            ? '<span class="muted">unknown (route without cost)</span>'
            : formatRub(providerCost),
        ],
        ['Attempts, re-queues', `${task.attempts}, ${task.requeues}`],
        ['Processing time', `${(Number(task.processing_ms) / 1000).toFixed(1)} s`],
        ['Error', task.error ? escapeHtml(task.error) : '—'],
      ],
      '',
      'cards',
    );
    const events: [number, string][] = [[Number(task.created_at), 'created (pending)']];
    for (const entry of ledger)
      events.push([Number(entry.created_at), `${entry.kind} ${formatRub(Math.abs(Number(entry.amount)))}`]);
    const requeues = requeuesOf(task.provider_state);
    for (const [claimedAt, requeuedAt] of requeues) {
      events.push([claimedAt, 'processing']);
      events.push([requeuedAt, 'pending again (provider busy: re-queued)']);
    }
    if (task.processing_started_at !== null)
      events.push([Number(task.processing_started_at), 'processing (latest claim)']);
    else if (
      task.finished_at !== null &&
      Number(task.processing_ms) > 0 &&
      requeues.length === Number(task.requeues)
    ) {
      // processing_ms sums every stretch in processing; the last one ended when the task finished.
      const earlier = requeues.reduce((sum, [claimedAt, requeuedAt]) => sum + (requeuedAt - claimedAt), 0);
      events.push([Number(task.finished_at) - (Number(task.processing_ms) - earlier), 'processing']);
    }
    if (task.finished_at !== null) events.push([Number(task.finished_at), task.status]);
    for (const d of deliveries) {
      events.push([Number(d.created_at), `webhook queued (${escapeHtml(d.id)})`]);
      if (d.delivered_at !== null) events.push([Number(d.delivered_at), 'webhook delivered']);
    }
    events.sort((a, b) => a[0] - b[0]);
    const timeline = `<ol class="timeline">${events.map(([at, what]) => `<li>${exactTime(at)} · ${what}</li>`).join('')}</ol><p class="muted">Last change ${formatTime(Number(task.updated_at))}.</p>`;
    const body = `${pageHeader(`Task ${task.id}`, '')}${doneFlash((request.query as Record<string, unknown>).done)}${searchForm()}
<div class="grid">${card('Task', facts)}${card('Timeline', timeline)}</div>
${card('Webhook deliveries', deliveriesTable(deliveries, csrf, `task:${task.id}`))}`;
    return sendHtml(
      reply,
      200,
      renderConsolePage({ title: 'Task', active: 'tasks', session: request.console, body }),
    );
  });
}
