// The Analytics page: spend, requests and tokens over a chosen range (last day by hour; last week,
// last month or custom dates by day), for every key or one, as uPlot charts; per-key totals, the top
// models by spend and how tasks ended, by error kind. The numbers come from SQL aggregation
// (PanelAnalyticsService); the page only draws them.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { microToRub } from '../../domain/billing/money.js';
import { AppError } from '../../domain/errors.js';
import { ownEntry } from '../../domain/own-entry.js';
import {
  type AnalyticsQueryText,
  type AnalyticsReport,
  parseAnalyticsQuery,
} from '../../services/panel/analytics-panel.js';
import type { ApiKeyRow } from '../../storage/repositories/keys.js';
import { badge, card, escapeHtml, flash, formatRub, pageHeader, stat, table } from '../../web/html.js';
import { renderPage } from '../layout.js';
import { PANEL_ROUTE, sendHtml } from '../panel-context.js';
import { keyLabel, keyOptions, one, PAGES_CSS } from './common.js';

const RANGES: [string, string][] = [
  ['day', 'Last 24 hours'],
  ['week', 'Last 7 days'],
  ['month', 'Last 30 days'],
];

const OUTCOME_LABEL: Record<string, string> = {
  rejected: 'prompt rejected by the provider',
  billing: 'provider billing error',
  overload: 'provider overloaded',
  timeout: 'provider timeout',
  upstream: 'provider error',
  params: 'parameters refused',
};

/** JSON inside <script type="application/json">: `<` escaped so no text can close the element. */
function chartData(id: string, data: unknown): string {
  const json = JSON.stringify(data).replace(/</g, '\\u003c');
  return `<div class="chart" data-chart="${id}" role="img" aria-label="${escapeHtml((data as { title: string }).title)}"></div><script type="application/json" id="${id}">${json}</script>`;
}

function charts(report: AnalyticsReport, keys: Map<number, ApiKeyRow>): string {
  const rub = (values: number[]) => values.map(microToRub);
  return `<div class="charts">
${card('', chartData('chart-spend', { title: 'Spend by model, ₽', unit: 'rub', x: report.times, series: report.spendByModel.map((s) => ({ label: s.label, values: rub(s.values) })) }))}
${card('', chartData('chart-requests', { title: 'Requests by key', unit: 'count', x: report.times, series: report.requestsByKey.map((s) => ({ label: keys.get(s.keyId) ? keyLabel(keys.get(s.keyId)!) : `Key #${s.keyId}`, values: s.values })) }))}
${card(
  '',
  chartData('chart-tokens', {
    title: 'Chat tokens',
    unit: 'count',
    x: report.times,
    series: [
      { label: 'input', values: report.tokens.input },
      { label: 'output', values: report.tokens.output },
    ],
  }),
)}
</div>`;
}

export function registerAnalyticsPages(app: FastifyInstance, ctx: AppContext): void {
  const analytics = ctx.panel.analytics;

  app.get<{ Querystring: AnalyticsQueryText }>(
    '/panel/analytics',
    PANEL_ROUTE,
    async (request: FastifyRequest<{ Querystring: AnalyticsQueryText }>, reply: FastifyReply) => {
      const session = request.panel;
      const q = request.query;
      const text = { range: one(q.range), from: one(q.from), to: one(q.to), key: one(q.key) };
      const keyRows = await ctx.panel.owner.keys(session.accountId);
      const keys = new Map(keyRows.map((k) => [k.id, k]));
      let message = '';
      let range: ReturnType<typeof parseAnalyticsQuery>;
      let status = 200;
      try {
        range = parseAnalyticsQuery(text, ctx.clock.now());
      } catch (error) {
        if (!(error instanceof AppError) || error.status === 404) throw error;
        message = flash('error', error.message);
        status = error.status;
        range = parseAnalyticsQuery({ key: text.key }, ctx.clock.now());
      }
      // Another account's key (or a deleted one) is not found, even with no data behind it.
      if (range.keyId !== undefined && !keys.has(range.keyId))
        throw new AppError('not_found', 'Key not found');
      const report = await analytics.report(session.accountId, range);
      const keyQuery = range.keyId ? `&key=${range.keyId}` : '';
      const tabs = RANGES.map(
        ([name, label]) =>
          `<a href="/panel/analytics?range=${name}${keyQuery}"${range.name === name ? ' class="active" aria-current="true"' : ''}>${label}</a>`,
      ).join('');
      const controls = `<nav class="tabs" aria-label="Range">${tabs}</nav>
<form method="get" action="/panel/analytics" class="filters">
<input type="hidden" name="range" value="custom">
<label>From<input type="date" name="from" value="${escapeHtml(range.name === 'custom' ? new Date(range.from).toISOString().slice(0, 10) : '')}"></label>
<label>To<input type="date" name="to" value="${escapeHtml(range.name === 'custom' ? new Date(range.to - 86_400_000).toISOString().slice(0, 10) : '')}"></label>
<label>Key<select name="key">${keyOptions(keyRows, range.keyId, 'All keys')}</select></label>
<button class="btn" type="submit">Show</button></form>`;
      const t = report.total;
      const stats = `<div class="grid">${stat('Spend', formatRub(t.spent))}${stat('Requests', escapeHtml(t.requests.toLocaleString('en')))}${stat('Input tokens', escapeHtml(t.input_tokens.toLocaleString('en')))}${stat('Output tokens', escapeHtml(t.output_tokens.toLocaleString('en')))}</div>`;
      const byKey = table(
        [
          { label: 'Key' },
          { label: 'Spend', num: true },
          { label: 'Requests', num: true },
          { label: 'Input tokens', num: true },
          { label: 'Output tokens', num: true },
        ],
        report.byKey.map((k) => [
          keys.get(k.keyId)
            ? `<a href="/panel/analytics?range=${range.name}&key=${k.keyId}">${escapeHtml(keyLabel(keys.get(k.keyId)!))}</a>`
            : `Key #${k.keyId} <span class="muted">(deleted)</span>`,
          formatRub(k.spent),
          String(k.requests),
          String(k.input_tokens),
          String(k.output_tokens),
        ]),
        'No requests in this range',
      );
      const byModel = table(
        [
          { label: 'Model' },
          { label: 'Spend', num: true },
          { label: 'Requests', num: true },
          { label: 'Input tokens', num: true },
          { label: 'Output tokens', num: true },
        ],
        report.byModel.map((m) => [
          `<code>${escapeHtml(m.model)}</code>`,
          formatRub(m.spent),
          String(m.requests),
          String(m.input_tokens),
          String(m.output_tokens),
        ]),
        'No requests in this range',
      );
      const outcomes = table(
        [{ label: 'Outcome' }, { label: 'Tasks', num: true }],
        report.outcomes.map((o) => [
          o.status === 'failed'
            ? `${badge('failed', 'error')} ${escapeHtml(ownEntry(OUTCOME_LABEL, o.error_kind ?? '') ?? o.error_kind ?? '')}`
            : badge(o.status, o.status === 'completed' ? 'ok' : 'info'),
          String(o.tasks),
        ]),
        'No tasks in this range',
      );
      const scope = range.keyId ? keyLabel(keys.get(range.keyId)!) : 'all keys';
      const body = `${pageHeader('Analytics', `${scope}, times in UTC`)}${message}${controls}${stats}${charts(report, keys)}
<div class="charts">${card('Spend by key', byKey)}${card('Top models by spend', byModel)}</div>
${card('Task outcomes', outcomes)}`;
      const head = `${PAGES_CSS}<link rel="stylesheet" href="/panel/assets/uplot.css"><script src="/panel/assets/uplot.js" defer></script><script src="/panel/assets/charts.js" defer></script>`;
      return sendHtml(
        reply,
        status,
        renderPage({ title: 'Analytics', active: 'analytics', session, body, head }),
      );
    },
  );
}
