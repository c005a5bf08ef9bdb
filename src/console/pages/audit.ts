// The operator audit log: every change made in the console (and its sign-ins), who, what, on which
// object, with the state before and after; newest first, 50 a page.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { card, escapeHtml, formatTime, pageHeader, table } from '../../web/html.js';
import { sendHtml } from '../../web/http.js';
import { CONSOLE_ROUTE } from '../console-context.js';
import { renderConsolePage } from '../layout.js';
import { one } from './common.js';

const PAGE = 50;

function pretty(json: string | null): string {
  if (json === null) return '<span class="muted">—</span>';
  return `<pre class="json">${escapeHtml(JSON.stringify(JSON.parse(json), null, 1))}</pre>`;
}

export function registerAuditPages(app: FastifyInstance, ctx: AppContext): void {
  app.get('/console/audit', CONSOLE_ROUTE, async (request, reply) => {
    const before = one((request.query as Record<string, unknown>).before);
    const beforeId = before && /^\d{1,15}$/.test(before) ? Number(before) : undefined;
    const rows = await ctx.operator.console.auditLog(PAGE + 1, beforeId);
    const shown = rows.slice(0, PAGE);
    const more =
      rows.length > PAGE
        ? `<p><a class="btn" href="/console/audit?before=${shown[shown.length - 1].id}">Older</a></p>`
        : '';
    const body = `${pageHeader('Operator audit log', 'Every change made in the console, newest first')}
${card(
  '',
  table(
    [
      { label: 'When' },
      { label: 'Who' },
      { label: 'What' },
      { label: 'Object' },
      { label: 'Before' },
      { label: 'After' },
    ],
    shown.map((r) => [
      formatTime(Number(r.created_at)),
      `${escapeHtml(r.actor)}${r.ip ? `<br><span class="muted">${escapeHtml(r.ip)}</span>` : ''}`,
      `<code>${escapeHtml(r.action)}</code>`,
      escapeHtml(r.target ?? '—'),
      pretty(r.before),
      pretty(r.after),
    ]),
    'Nothing recorded yet.',
  ),
)}${more}`;
    return sendHtml(
      reply,
      200,
      renderConsolePage({ title: 'Audit', active: 'audit', session: request.console, body }),
    );
  });
}
