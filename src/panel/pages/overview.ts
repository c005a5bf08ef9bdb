// The overview (/panel): balances across the owner's keys, 30-day spend and the latest tasks. Light
// on purpose: charts and breakdowns live on the Analytics page.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { maskApiKey } from '../../domain/keys/api-key.js';
import { ownEntry } from '../../domain/own-entry.js';
import {
  badge,
  card,
  emptyState,
  escapeHtml,
  formatRub,
  formatTime,
  pageHeader,
  stat,
  type Tone,
  table,
} from '../../web/html.js';
import { renderPage } from '../layout.js';
import { PANEL_ROUTE, sendHtml } from '../panel-context.js';

const DAY_MS = 24 * 3600 * 1000;
const RECENT_TASKS = 10;

const STATUS_TONE: Record<string, Tone> = {
  completed: 'ok',
  failed: 'error',
  queued: 'info',
  pending: 'info',
  processing: 'info',
};

export function registerOverviewPage(app: FastifyInstance, ctx: AppContext): void {
  app.get('/panel', PANEL_ROUTE, async (request, reply) => {
    const { accountId } = request.panel;
    const since = ctx.clock.now() - 30 * DAY_MS;
    const [keys, spend, tasks] = await Promise.all([
      ctx.panel.owner.keys(accountId),
      ctx.panel.owner.spendByKey(accountId, since),
      ctx.panel.owner.recentTasks(accountId, RECENT_TASKS),
    ]);
    const balance = keys.reduce((sum, k) => sum + Number(k.balance), 0);
    const held = keys.reduce((sum, k) => sum + Number(k.held), 0);
    const spent = spend.reduce((sum, s) => sum + s.spent, 0);
    const requests = spend.reduce((sum, s) => sum + s.requests, 0);
    const spendOf = new Map(spend.map((s) => [s.key_id, s]));
    const nameOf = new Map(keys.map((k) => [Number(k.id), k.name ?? `key ${k.id}`]));

    const keyRows = keys.map((k) => [
      `<a href="/panel/keys#key-${k.id}">${escapeHtml(k.name ?? `key ${k.id}`)}</a>`,
      `<code>${escapeHtml(maskApiKey(k.key_prefix, k.key_last4))}</code>`,
      formatRub(Number(k.balance)),
      formatRub(Number(k.held)),
      formatRub(spendOf.get(Number(k.id))?.spent ?? 0),
    ]);
    const taskRows = tasks.map((t) => [
      `<code>${escapeHtml(t.id)}</code>`,
      escapeHtml(t.model_id),
      badge(t.status, ownEntry(STATUS_TONE, t.status) ?? 'muted'),
      escapeHtml(nameOf.get(Number(t.key_id)) ?? `key ${t.key_id}`),
      formatTime(Number(t.created_at)),
    ]);

    const body = `${pageHeader('Overview', `Account ${request.panel.messagingId}`)}
<div class="grid">
${stat('Balance', formatRub(balance), `${keys.length} key${keys.length === 1 ? '' : 's'}`)}
${stat('Held', formatRub(held), 'reserved by running tasks')}
${stat('Spent, 30 days', formatRub(spent), `${requests} paid request${requests === 1 ? '' : 's'}`)}
</div>
${card(
  'Keys',
  keys.length
    ? table(
        [
          { label: 'Key' },
          { label: 'Value' },
          { label: 'Balance', num: true },
          { label: 'Held', num: true },
          { label: 'Spent 30 d', num: true },
        ],
        keyRows,
        'No keys yet',
      )
    : emptyState(
        'No keys yet',
        'Create a key on the Keys page to call the API.',
        '<a class="btn btn-primary" href="/panel/keys">Go to keys</a>',
      ),
)}
${card(
  'Recent tasks',
  table(
    [{ label: 'Task' }, { label: 'Model' }, { label: 'Status' }, { label: 'Key' }, { label: 'Created' }],
    taskRows,
    'No tasks yet',
  ) + (tasks.length ? '<p><a href="/panel/tasks">All tasks →</a></p>' : ''),
)}`;
    return sendHtml(
      reply,
      200,
      renderPage({ title: 'Overview', active: 'overview', session: request.panel, body }),
    );
  });
}
