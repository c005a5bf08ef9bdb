// Providers: each configured upstream with its health state (the provider pool's), the outcomes and mean
// latencies this process's metrics saw, each route of PROVIDERS_FILE with its cost, and
// `providers check` run from the page.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import type { ProviderCheckRow } from '../../services/providers-check.js';
import { badge, card, escapeHtml, formatRub, pageHeader, table } from '../../web/html.js';
import { sendHtml } from '../../web/http.js';
import { CONSOLE_ROUTE, operatorOf } from '../console-context.js';
import { csrfField, renderConsolePage } from '../layout.js';

const seconds = (s: number | null) =>
  s === null ? '<span class="muted">—</span>' : `${s.toFixed(s < 1 ? 3 : 1)} s`;

function checkTable(rows: ProviderCheckRow[]): string {
  return table(
    [
      { label: 'Provider' },
      { label: 'Reachable' },
      { label: 'Auth' },
      { label: 'Latency', num: true },
      { label: 'Detail' },
    ],
    rows.map((r) => [
      escapeHtml(r.provider),
      r.reachable === null ? badge('n/a') : r.reachable ? badge('yes', 'ok') : badge('no', 'error'),
      r.authOk === null ? badge('n/a') : r.authOk ? badge('ok', 'ok') : badge('refused', 'error'),
      r.latencyMs === null ? '—' : `${r.latencyMs} ms`,
      escapeHtml(r.detail),
    ]),
    'No upstream provider is configured: every model runs on the built-in simulator.',
  );
}

export function registerProviderPages(app: FastifyInstance, ctx: AppContext): void {
  const status = ctx.operator.providers;

  async function page(request: FastifyRequest, reply: FastifyReply, checked = '') {
    const providers = await status.providers();
    const routes = status.routes();
    const providerRows = providers.map((p) => {
      const outcomes = Object.entries(p.outcomes)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => `${escapeHtml(k)} ${v}`)
        .join(', ');
      return [
        `<strong>${escapeHtml(p.name)}</strong><br><span class="muted">${escapeHtml(p.type)} ${escapeHtml(p.baseUrl)}</span>`,
        p.state === null
          ? '<span class="muted" title="The built-in simulator has no health state">—</span>'
          : badge(p.state, p.state === 'up' ? 'ok' : p.state === 'down' ? 'error' : 'warn'),
        outcomes || '<span class="muted">none yet</span>',
        seconds(p.meanTimeToResultS),
        seconds(p.meanCallS),
      ];
    });
    const routeRows = routes.map((r) => [
      `<code>${escapeHtml(r.model)}</code>`,
      String(r.order),
      escapeHtml(r.provider),
      `<code>${escapeHtml(r.upstreamModel)}</code>`,
      r.costMicro === null ? '<span class="muted">no cost</span>' : formatRub(r.costMicro),
      r.costOutputMicro === null ? '—' : formatRub(r.costOutputMicro),
    ]);
    const body = `${pageHeader('Providers', 'Outcomes and latencies seen by this process since it started')}
${checked}
${card('Upstreams', table([{ label: 'Provider' }, { label: 'State' }, { label: 'Outcomes' }, { label: 'Mean time to result', num: true }, { label: 'Mean upstream call', num: true }], providerRows, 'No provider yet.', 'scroll'))}
${card(
  'Check',
  `<p>One cheap authenticated call per configured upstream (never a generation), as <code>gengate providers check</code>.</p>
<form method="post" action="/console/providers/check">${csrfField(request.console)}<button class="btn btn-primary" type="submit">Run providers check</button></form>`,
)}
${card('Routes (PROVIDERS_FILE)', table([{ label: 'Model' }, { label: 'Order', num: true }, { label: 'Provider' }, { label: 'Upstream model' }, { label: 'Cost per unit', num: true }, { label: 'Cost per 1M output', num: true }], routeRows, 'No routes: every model runs on the built-in simulator.', 'scroll'))}`;
    return sendHtml(
      reply,
      200,
      renderConsolePage({ title: 'Providers', active: 'providers', session: request.console, body }),
    );
  }

  app.get('/console/providers', CONSOLE_ROUTE, (request, reply) => page(request, reply));

  app.post('/console/providers/check', CONSOLE_ROUTE, async (request, reply) => {
    const rows = await ctx.operator.console.checkProviders(operatorOf(request));
    return page(request, reply, card('Check results', `<div data-check-results>${checkTable(rows)}</div>`));
  });
}
