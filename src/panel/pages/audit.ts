// The Audit page: the account's last 90 days, filtered by action, key and UTC date range, paged
// newest first, details in words; the same filters export as CSV.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { type AuditFilter, actionLabel, describeDetails } from '../../services/panel/panel-audit.js';
import { escapeHtml, flash, formatTime, pageHeader, table } from '../../web/html.js';
import { renderPage } from '../layout.js';
import { PANEL_ROUTE, sendHtml } from '../panel-context.js';

const PAGE_SIZE = 50;
const CSV_CAP = 100_000;
const DAY_MS = 24 * 3600 * 1000;

interface AuditQuery {
  action?: string;
  key?: string;
  from?: string;
  to?: string;
  before?: string;
}

/** YYYY-MM-DD (UTC) → the day's first millisecond; undefined when not such a date. */
function utcDay(text: string | undefined): number | undefined {
  if (!text || !/^\d{4}-\d{2}-\d{2}$/.test(text)) return undefined;
  const ms = Date.parse(`${text}T00:00:00Z`);
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== text ? undefined : ms;
}

/** The filter of a query string, and the problems with it (shown, never a silent misfilter). */
function readFilter(query: AuditQuery): { filter: AuditFilter; problems: string[] } {
  const problems: string[] = [];
  const filter: AuditFilter = {};
  if (query.action) filter.action = query.action.slice(0, 100);
  if (query.key) {
    if (/^\d{1,15}$/.test(query.key)) filter.keyId = Number(query.key);
    else problems.push('Key must be one of your keys.');
  }
  if (query.from) {
    filter.from = utcDay(query.from);
    if (filter.from === undefined) problems.push('“From” must be a date like 2026-01-31.');
  }
  if (query.to) {
    const day = utcDay(query.to);
    if (day === undefined) problems.push('“To” must be a date like 2026-01-31.');
    else filter.to = day + DAY_MS; // the whole "to" day is included
  }
  if (filter.from !== undefined && filter.to !== undefined && filter.from >= filter.to) {
    problems.push('“From” must not be after “To”.');
  }
  return { filter, problems };
}

function queryString(query: AuditQuery, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  for (const name of ['action', 'key', 'from', 'to'] as const)
    if (query[name]) params.set(name, String(query[name]));
  for (const [name, value] of Object.entries(extra)) params.set(name, value);
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** One CSV field: quoted when needed; a leading = + - @ is defused for spreadsheets. */
function csvField(value: unknown): string {
  let text = String(value ?? '');
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function registerAuditPages(app: FastifyInstance, ctx: AppContext): void {
  const audit = ctx.panel.audit;

  app.get<{ Querystring: AuditQuery }>('/panel/audit', PANEL_ROUTE, async (request, reply) => {
    const session = request.panel;
    const query = request.query;
    const { filter, problems } = readFilter(query);
    const before = query.before && /^\d{1,15}$/.test(query.before) ? Number(query.before) : undefined;
    const [page, actions, keyNames, keys] = await Promise.all([
      problems.length
        ? Promise.resolve({ rows: [] })
        : audit.page(session.accountId, filter, PAGE_SIZE, before),
      audit.actions(session.accountId),
      audit.keyNames(session.accountId),
      ctx.panel.owner.keys(session.accountId),
    ]);
    const rows = page.rows.map((r) => [
      formatTime(Number(r.created_at)),
      escapeHtml(actionLabel(r.action)),
      escapeHtml(r.actor),
      r.ip ? `<code>${escapeHtml(r.ip)}</code>` : '<span class="muted">—</span>',
      escapeHtml(describeDetails(r.details, keyNames)),
    ]);
    const keyChoices = new Map(keyNames);
    for (const k of keys) keyChoices.set(Number(k.id), keyNames.get(Number(k.id)) ?? `#${k.id}`);
    const option = (value: string, label: string, selected: boolean) =>
      `<option value="${escapeHtml(value)}"${selected ? ' selected' : ''}>${escapeHtml(label)}</option>`;
    const filters = `<form method="get" action="/panel/audit" class="filters">
<label>Action <select name="action">${option('', 'All actions', !query.action)}${actions.map((a) => option(a, actionLabel(a), a === query.action)).join('')}</select></label>
<label>Key <select name="key">${option('', 'All keys', !query.key)}${[...keyChoices].map(([id, name]) => option(String(id), name, String(id) === query.key)).join('')}</select></label>
<label>From <input type="date" name="from" value="${escapeHtml(query.from ?? '')}"></label>
<label>To <input type="date" name="to" value="${escapeHtml(query.to ?? '')}"></label>
<button class="btn" type="submit">Filter</button>
<a class="btn btn-ghost" href="/panel/audit">Reset</a>
</form>`;
    const older =
      'nextBefore' in page && page.nextBefore !== undefined
        ? `<a class="btn" href="/panel/audit${queryString(query, { before: String(page.nextBefore) })}">Older →</a>`
        : '';
    const newest =
      before !== undefined
        ? `<a class="btn btn-ghost" href="/panel/audit${queryString(query)}">Newest</a>`
        : '';
    const body = `${pageHeader(
      'Audit log',
      'Sign-ins, key and money changes, secret rotations: the last 90 days, times in UTC',
      `<a class="btn" href="/panel/audit.csv${queryString(query)}" download>Export CSV</a>`,
    )}
${problems.map((p) => flash('error', p)).join('')}${filters}
${table([{ label: 'When' }, { label: 'What' }, { label: 'By' }, { label: 'IP' }, { label: 'Details' }], rows, 'No entries match')}
<div class="pager">${newest}${older}</div>`;
    return sendHtml(
      reply,
      problems.length ? 422 : 200,
      renderPage({ title: 'Audit log', active: 'audit', session, body }),
    );
  });

  app.get<{ Querystring: AuditQuery }>(
    '/panel/audit.csv',
    PANEL_ROUTE,
    async (request: FastifyRequest<{ Querystring: AuditQuery }>, reply) => {
      const { filter, problems } = readFilter(request.query);
      if (problems.length) return reply.code(422).type('text/plain; charset=utf-8').send(problems.join('\n'));
      const [rows, keyNames] = await Promise.all([
        audit.all(request.panel.accountId, filter, CSV_CAP),
        audit.keyNames(request.panel.accountId),
      ]);
      const lines = [
        ['time_utc', 'action', 'description', 'actor', 'ip', 'details', 'details_json'].join(','),
      ];
      for (const r of rows) {
        lines.push(
          [
            new Date(Number(r.created_at)).toISOString(),
            r.action,
            actionLabel(r.action),
            r.actor,
            r.ip ?? '',
            describeDetails(r.details, keyNames),
            r.details ?? '',
          ]
            .map(csvField)
            .join(','),
        );
      }
      const day = new Date(ctx.clock.now()).toISOString().slice(0, 10);
      return reply
        .header('Cache-Control', 'no-store')
        .header('Content-Disposition', `attachment; filename="gengate-audit-${day}.csv"`)
        .type('text/csv; charset=utf-8')
        .send(`\ufeff${lines.join('\r\n')}\r\n`);
    },
  );
}
