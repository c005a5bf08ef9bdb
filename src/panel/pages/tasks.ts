// The Tasks pages: the account's tasks, searchable by id, model and status, newest first in pages,
// with status, model, cost, created and finished times and the result previewed inline (an image, or
// a video player); each task's page lists its webhook deliveries with a redeliver button.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { AppError } from '../../domain/errors.js';
import { ownEntry } from '../../domain/own-entry.js';
import type { listTasks } from '../../services/tasks/list-tasks.js';
import type { TaskRow } from '../../storage/repositories/tasks.js';
import {
  badge,
  card,
  emptyState,
  escapeHtml,
  flash,
  formatRub,
  formatTime,
  pageHeader,
  type Tone,
  table,
} from '../../web/html.js';
import { csrfField, renderPage } from '../layout.js';
import { PANEL_ROUTE, sendHtml } from '../panel-context.js';
import { doneFlash, keyLabel, one, ownerActor, PAGES_CSS } from './common.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const STATUS_TONE: Record<string, Tone> = {
  pending: 'muted',
  processing: 'info',
  completed: 'ok',
  failed: 'error',
};
const PAGE_SIZE = '25';

type TasksQuery = { q?: string; model?: string; status?: string; after?: string; done?: string };

interface Media {
  kind: 'image' | 'video';
  url: string;
}

/**
 * The task's result media at a same-origin path when it is one of ours (the CSP allows media from
 * 'self' only); a URL elsewhere is offered as a link instead.
 */
export function resultMedia(task: TaskRow, publicUrl: string): { media: Media | null; link: string | null } {
  if (task.status !== 'completed' || !task.result) return { media: null, link: null };
  let result: Record<string, unknown>;
  try {
    result = JSON.parse(task.result) as Record<string, unknown>;
  } catch {
    return { media: null, link: null };
  }
  const video = typeof result.video_url === 'string' ? result.video_url : null;
  const image = typeof result.image_url === 'string' ? result.image_url : null;
  const url = video ?? image;
  if (!url) return { media: null, link: null };
  const base = publicUrl.replace(/\/+$/, '');
  if (!url.startsWith(`${base}/objects/`)) return { media: null, link: url };
  return { media: { kind: video ? 'video' : 'image', url: url.slice(base.length) }, link: url };
}

function mediaHtml(media: Media, size: 'thumb' | 'full'): string {
  const src = escapeHtml(media.url);
  if (media.kind === 'image')
    return `<img src="${src}" alt="Result image" loading="lazy"${size === 'thumb' ? ' class="thumb"' : ''}>`;
  return size === 'thumb'
    ? `<video class="thumb" src="${src}" preload="metadata" muted playsinline></video>`
    : `<video src="${src}" controls preload="metadata" playsinline></video>`;
}

function statusBadge(status: string): string {
  return badge(status, ownEntry(STATUS_TONE, status) ?? 'muted');
}

export function registerTasksPages(app: FastifyInstance, ctx: AppContext): void {
  const publicUrl = ctx.config.publicUrl;

  app.get<{ Querystring: TasksQuery }>('/panel/tasks', PANEL_ROUTE, async (request, reply) => {
    const session = request.panel;
    const q = {
      q: one(request.query.q)?.trim() ?? '',
      model: one(request.query.model) ?? '',
      status: one(request.query.status) ?? '',
      after: one(request.query.after),
    };
    // A task id typed in the search opens that task (when it is one of the account's).
    if (q.q) {
      const task = UUID.test(q.q) ? await ctx.panel.owner.task(session.accountId, q.q) : undefined;
      if (task) return reply.redirect(`/panel/tasks/${task.id}`, 303);
    }
    let message = doneFlash(request.query.done);
    let status = 200;
    let page: Awaited<ReturnType<typeof listTasks>> = { tasks: [], hasMore: false, nextCursor: null };
    if (q.q) {
      message = flash('info', 'No task of yours has this id.');
    } else {
      try {
        page = await ctx.panel.owner.tasks(session.accountId, {
          limit: PAGE_SIZE,
          after: q.after || undefined,
          status: q.status || undefined,
          model: q.model || undefined,
        });
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        message = flash('error', error.message);
        status = error.status;
      }
    }
    const models = await ctx.catalog.publicModels();
    const modelOptions = [
      `<option value="">All models</option>`,
      ...models.map(
        (m) =>
          `<option value="${escapeHtml(m.id)}"${m.id === q.model ? ' selected' : ''}>${escapeHtml(m.id)}</option>`,
      ),
    ].join('');
    const statusOptions = ['', 'pending', 'processing', 'completed', 'failed']
      .map((s) => `<option value="${s}"${s === q.status ? ' selected' : ''}>${s || 'All statuses'}</option>`)
      .join('');
    const rows = page.tasks.map((task) => {
      const { media } = resultMedia(task, publicUrl);
      const final = task.status === 'completed' || task.status === 'failed';
      return [
        `<a href="/panel/tasks/${escapeHtml(task.id)}"><code>${escapeHtml(task.id.slice(0, 8))}…</code></a>`,
        statusBadge(task.status),
        `<code>${escapeHtml(task.model_id)}</code>`,
        final
          ? formatRub(Number(task.cost ?? 0))
          : `<span class="muted">held ${formatRub(Number(task.hold_amount))}</span>`,
        formatTime(Number(task.created_at)),
        formatTime(task.finished_at === null ? null : Number(task.finished_at)),
        media
          ? `<a href="/panel/tasks/${escapeHtml(task.id)}">${mediaHtml(media, 'thumb')}</a>`
          : task.status === 'failed'
            ? `<span class="muted">${escapeHtml(task.error ?? '')}</span>`
            : '',
      ];
    });
    const filterParams = new URLSearchParams();
    if (q.model) filterParams.set('model', q.model);
    if (q.status) filterParams.set('status', q.status);
    const next = page.nextCursor
      ? `<a class="btn btn-small" href="/panel/tasks?${escapeHtml(new URLSearchParams([...filterParams, ['after', page.nextCursor]]).toString())}">Older tasks</a>`
      : '';
    const first = q.after
      ? `<a class="btn btn-small" href="/panel/tasks?${escapeHtml(filterParams.toString())}">Newest</a>`
      : '';
    const body = `${pageHeader('Tasks', 'Video and image generations of every key, newest first')}${message}
<form method="get" action="/panel/tasks" class="filters">
<label>Task id<input name="q" value="${escapeHtml(q.q)}" placeholder="0192…" spellcheck="false"></label>
<label>Model<select name="model">${modelOptions}</select></label>
<label>Status<select name="status">${statusOptions}</select></label>
<button class="btn" type="submit">Search</button></form>
${table(
  [
    { label: 'Task' },
    { label: 'Status' },
    { label: 'Model' },
    { label: 'Cost', num: true },
    { label: 'Created' },
    { label: 'Finished' },
    { label: 'Result' },
  ],
  rows,
  'No tasks match',
)}<div class="pager">${first}${next}</div>`;
    return sendHtml(
      reply,
      status,
      renderPage({ title: 'Tasks', active: 'tasks', session, body, head: PAGES_CSS }),
    );
  });

  async function taskPage(request: FastifyRequest, reply: FastifyReply, taskId: string, message = '') {
    const session = request.panel;
    const task = UUID.test(taskId) ? await ctx.panel.owner.task(session.accountId, taskId) : undefined;
    if (!task) throw new AppError('task_not_found', 'Task not found');
    const [deliveries, key] = await Promise.all([
      ctx.panel.owner.taskDeliveries(session.accountId, task.id),
      ctx.panel.owner.key(session.accountId, Number(task.key_id)),
    ]);
    const { media, link } = resultMedia(task, publicUrl);
    const final = task.status === 'completed' || task.status === 'failed';
    const facts = table(
      [{ label: 'Field' }, { label: 'Value' }],
      [
        ['Status', statusBadge(task.status)],
        ['Model', `<code>${escapeHtml(task.model_id)}</code>`],
        [
          'Key',
          key
            ? `<a href="/panel/keys/${key.id}">${escapeHtml(keyLabel(key))}</a>`
            : `Key #${task.key_id} <span class="muted">(deleted)</span>`,
        ],
        [final ? 'Cost' : 'Held', formatRub(Number(final ? (task.cost ?? 0) : task.hold_amount))],
        ['Created', formatTime(Number(task.created_at))],
        ['Finished', formatTime(task.finished_at === null ? null : Number(task.finished_at))],
        ...(task.status === 'failed' ? [['Error', escapeHtml(task.error ?? '')]] : []),
        ...(link
          ? [['Result URL', `<a href="${escapeHtml(link)}" rel="noreferrer">${escapeHtml(link)}</a>`]]
          : []),
      ],
      '',
    );
    const csrf = csrfField(session);
    const deliveryRows = deliveries.map((d) => [
      `<code>${escapeHtml(d.id)}</code>`,
      escapeHtml(d.url),
      badge(d.status, d.status === 'delivered' ? 'ok' : d.status === 'undelivered' ? 'error' : 'info'),
      String(d.attempts),
      d.last_status_code ? String(d.last_status_code) : escapeHtml(d.last_error ?? ''),
      formatTime(d.delivered_at === null ? null : Number(d.delivered_at)),
      `<form method="post" action="/panel/tasks/${escapeHtml(task.id)}/deliveries/${encodeURIComponent(d.id)}/redeliver" class="inline" data-confirm="Send this webhook again?">${csrf}<button class="btn btn-small" type="submit">Redeliver</button></form>`,
    ]);
    const params = escapeHtml(JSON.stringify(JSON.parse(task.params), null, 2));
    const body = `${pageHeader(`Task ${task.id.slice(0, 8)}…`, task.id, '<a class="btn" href="/panel/tasks">All tasks</a>')}${message}
${media ? card('Result', `<div class="preview">${mediaHtml(media, 'full')}</div>`) : ''}
${card('Details', facts)}
${card(
  'Webhook deliveries',
  deliveries.length === 0
    ? emptyState(
        'No webhook for this task',
        task.webhook_url ? 'It is sent once the task ends.' : 'The request gave no webhook_url.',
      )
    : table(
        [
          { label: 'Delivery id' },
          { label: 'URL' },
          { label: 'Status' },
          { label: 'Attempts', num: true },
          { label: 'Last answer' },
          { label: 'Delivered' },
          { label: '' },
        ],
        deliveryRows,
        '',
      ),
)}
${card('Parameters', `<pre class="json">${params}</pre>`)}`;
    return sendHtml(
      reply,
      200,
      renderPage({ title: 'Task', active: 'tasks', session, body, head: PAGES_CSS }),
    );
  }

  app.get<{ Params: { id: string }; Querystring: { done?: string } }>(
    '/panel/tasks/:id',
    PANEL_ROUTE,
    (request, reply) => taskPage(request, reply, request.params.id, doneFlash(request.query.done)),
  );

  app.post<{ Params: { id: string; delivery: string } }>(
    '/panel/tasks/:id/deliveries/:delivery/redeliver',
    PANEL_ROUTE,
    async (request, reply) => {
      const { id, delivery } = request.params;
      const task = UUID.test(id) ? await ctx.panel.owner.task(request.panel.accountId, id) : undefined;
      const row = task ? await ctx.panel.owner.delivery(request.panel.accountId, delivery) : undefined;
      if (!task || !row || row.task_id !== task.id)
        throw new AppError('not_found', 'Webhook delivery not found');
      await ctx.webhooks.redeliver(delivery, ownerActor(request), request.panel.accountId);
      return reply.redirect(`/panel/tasks/${task.id}?done=redelivered`, 303);
    },
  );
}
