// The margin report: per UTC day, model and provider, requests, revenue, provider cost and margin
// (GET /admin/reports/margin as a page), a chart of the days' totals, and the models sold below
// cost over the range highlighted. A row without a known cost shows no cost and no margin.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { AppError } from '../../domain/errors.js';
import type { MarginRowMicro } from '../../services/operator/margin-report.js';
import { card, emptyState, escapeHtml, flash, formatRub, pageHeader } from '../../web/html.js';
import { sendHtml } from '../../web/http.js';
import { CONSOLE_ROUTE } from '../console-context.js';
import { CONSOLE_ASSETS, renderConsolePage } from '../layout.js';
import { one } from './common.js';

const DAY_S = 86_400;
const money = (micro: number | null) => (micro === null ? '<span class="muted">—</span>' : formatRub(micro));

function chart(rows: MarginRowMicro[], from: string, to: string): string {
  const days: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += DAY_S * 1000)
    days.push(new Date(t).toISOString().slice(0, 10));
  const index = new Map(days.map((d, i) => [d, i]));
  const revenue = days.map(() => 0);
  const cost = days.map(() => 0);
  const margin = days.map(() => 0);
  for (const r of rows) {
    const i = index.get(r.day);
    if (i === undefined) continue;
    revenue[i] += r.revenue / 1e6;
    if (r.cost !== null) cost[i] += r.cost / 1e6;
    if (r.margin !== null) margin[i] += r.margin / 1e6;
  }
  const data = {
    title: 'Per day, ₽ (cost and margin of rows with a known cost)',
    unit: 'rub',
    x: days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000),
    series: [
      { label: 'Revenue', values: revenue },
      { label: 'Provider cost', values: cost },
      { label: 'Margin', values: margin },
    ],
  };
  // JSON inside <script type="application/json">: "<" escaped so no text can close the element.
  const json = JSON.stringify(data).replace(/</g, '\\u003c');
  return `<div class="chart" data-chart="chart-margin" role="img" aria-label="${escapeHtml(data.title)}"></div><script type="application/json" id="chart-margin">${json}</script>`;
}

/** (model, provider) pairs whose known cost over the range exceeds their revenue. */
function belowCost(rows: MarginRowMicro[]): { model: string; provider: string | null; margin: number }[] {
  const sums = new Map<string, { model: string; provider: string | null; margin: number }>();
  for (const r of rows) {
    if (r.margin === null) continue;
    const id = `${r.model}\u0000${r.provider ?? ''}`;
    const into = sums.get(id) ?? { model: r.model, provider: r.provider, margin: 0 };
    into.margin += r.margin;
    sums.set(id, into);
  }
  return [...sums.values()].filter((s) => s.margin < 0).sort((a, b) => a.margin - b.margin);
}

function rowsTable(rows: MarginRowMicro[]): string {
  if (rows.length === 0) return emptyState('No requests in this range.', '');
  const head = ['Day', 'Model', 'Provider', 'Requests', 'Revenue', 'Cost', 'Margin']
    .map((h, i) => `<th scope="col"${i >= 3 ? ' class="num"' : ''}>${h}</th>`)
    .join('');
  const body = rows
    .map((r) => {
      const below = r.margin !== null && r.margin < 0;
      const cells = [
        escapeHtml(r.day),
        `<code>${escapeHtml(r.model)}</code>`,
        escapeHtml(r.provider ?? '—'),
        String(r.requests),
        money(r.revenue),
        money(r.cost),
        money(r.margin),
      ];
      const labels = ['Day', 'Model', 'Provider', 'Requests', 'Revenue', 'Cost', 'Margin'];
      return `<tr${below ? ' class="below-cost" data-below-cost' : ''}>${cells.map((c, i) => `<td data-label="${labels[i]}"${i >= 3 ? ' class="num"' : ''}>${c}</td>`).join('')}</tr>`;
    })
    .join('');
  return `<div class="table-wrap cards"><table><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>`;
}

export function registerMarginPages(app: FastifyInstance, ctx: AppContext): void {
  app.get('/console/margin', CONSOLE_ROUTE, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const from = one(query.from) ?? '';
    const to = one(query.to) ?? '';
    let message = '';
    let status = 200;
    let report: { from: string; to: string; rows: MarginRowMicro[] };
    try {
      report = await ctx.operator.margin.report({ from, to });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      message = flash('error', error.message);
      status = error.status;
      report = await ctx.operator.margin.report({});
    }
    const rows = report.rows;
    const total = (pick: (r: MarginRowMicro) => number | null) =>
      rows.reduce((s, r) => s + (pick(r) ?? 0), 0);
    const unknown = rows.filter((r) => r.cost === null).length;
    const losers = belowCost(rows);
    const warning =
      losers.length === 0
        ? ''
        : `<section class="card" role="alert" data-below-cost-models><h2>Sold below cost</h2><ul>${losers
            .map(
              (l) =>
                `<li><code>${escapeHtml(l.model)}</code> via ${escapeHtml(l.provider ?? '—')}: ${formatRub(l.margin)}</li>`,
            )
            .join('')}</ul></section>`;
    const body = `${pageHeader('Margin', `${report.from} to ${report.to}, UTC days`)}${message}
<form method="get" action="/console/margin" class="inline-form">
<label>From <input type="date" name="from" value="${escapeHtml(report.from)}"></label>
<label>To <input type="date" name="to" value="${escapeHtml(report.to)}"></label>
<button class="btn btn-primary" type="submit">Show</button></form>
<div class="grid">
${card('Revenue', `<p class="stat-value">${formatRub(total((r) => r.revenue))}</p>`)}
${card('Known cost', `<p class="stat-value">${formatRub(total((r) => r.cost))}</p>${unknown ? `<p class="muted">${unknown} row${unknown === 1 ? '' : 's'} without a known cost</p>` : ''}`)}
${card('Margin (known cost)', `<p class="stat-value">${formatRub(total((r) => r.margin))}</p>`)}
</div>
${warning}
${card('', chart(rows, report.from, report.to))}
${card('By day, model and provider', rowsTable(rows))}`;
    const head = `<link rel="stylesheet" href="${CONSOLE_ASSETS}/uplot.css"><script src="${CONSOLE_ASSETS}/uplot.js" defer></script><script src="${CONSOLE_ASSETS}/charts.js" defer></script>`;
    return sendHtml(
      reply,
      status,
      renderConsolePage({ title: 'Margin', active: 'margin', session: request.console, body, head }),
    );
  });
}
