// Models and prices: every catalog entry, internal billing variants (ids with a colon) and inactive
// ones included; edit a price (empty: no price), active and visible. A price below zero is refused
// on the page and nothing changes.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { microToRub } from '../../domain/billing/money.js';
import { type CatalogModel, isInternalModelId } from '../../domain/catalog/model.js';
import { badge, card, escapeHtml, pageHeader, table } from '../../web/html.js';
import { formBody, sendHtml } from '../../web/http.js';
import { CONSOLE_ROUTE, operatorOf } from '../console-context.js';
import { csrfField, renderConsolePage } from '../layout.js';
import { change, doneFlash, one } from './common.js';

const UNIT: Record<string, string> = { shot: 'per shot', sec: 'per second', mtok: 'per 1M tokens' };
const priceText = (micro: number | null) => (micro === null ? '' : String(microToRub(micro)));

function editForm(model: CatalogModel, csrf: string): string {
  const id = encodeURIComponent(model.id);
  const output =
    model.kind === 'text'
      ? `<label>Output ₽ <input name="price_output_rub" inputmode="decimal" value="${escapeHtml(priceText(model.priceOutputMicro))}" maxlength="20"></label>`
      : '';
  return `<form method="post" action="/console/models/${id}" class="inline-form" aria-label="Edit ${escapeHtml(model.id)}">${csrf}
<label>Price ₽ <input name="price_rub" inputmode="decimal" value="${escapeHtml(priceText(model.priceMicro))}" maxlength="20"></label>${output}
<label class="check"><input type="checkbox" name="active" value="1"${model.active ? ' checked' : ''}> active</label>
<label class="check"><input type="checkbox" name="visible" value="1"${model.visible ? ' checked' : ''}> visible</label>
<button class="btn btn-small" type="submit">Save</button></form>`;
}

export function registerModelPages(app: FastifyInstance, ctx: AppContext): void {
  const ops = ctx.operator.console;

  async function page(request: FastifyRequest, reply: FastifyReply, message = '', status = 200) {
    const filter = (one((request.query as Record<string, unknown>).q) ?? '').trim().toLowerCase();
    const models = (await ops.models()).filter((m) => !filter || m.id.toLowerCase().includes(filter));
    const csrf = csrfField(request.console);
    const rows = models.map((m) => [
      `<code>${escapeHtml(m.id)}</code>${isInternalModelId(m.id) ? ` ${badge('internal', 'info')}` : ''}${m.active ? '' : ` ${badge('inactive', 'muted')}`}${m.visible ? '' : ` ${badge('hidden', 'muted')}`}`,
      `${escapeHtml(m.kind)}, ${escapeHtml(UNIT[m.unit] ?? m.unit)}`,
      editForm(m, csrf),
    ]);
    const body = `${pageHeader('Models and prices', 'Prices in rubles before the account coefficient; internal variants carry a colon')}${doneFlash((request.query as Record<string, unknown>).done)}${message}
<form method="get" action="/console/models" class="inline-form" role="search"><label>Filter <input name="q" value="${escapeHtml(filter)}" placeholder="kling"></label><button class="btn" type="submit">Filter</button></form>
${card('', table([{ label: 'Model' }, { label: 'Billed' }, { label: 'Price' }], rows, 'No model matches.'))}`;
    return sendHtml(
      reply,
      status,
      renderConsolePage({ title: 'Models', active: 'models', session: request.console, body }),
    );
  }

  app.get('/console/models', CONSOLE_ROUTE, (request, reply) => page(request, reply));

  app.post<{ Params: { id: string } }>('/console/models/:id', CONSOLE_ROUTE, async (request, reply) => {
    const form = formBody(request);
    return change(
      reply,
      () =>
        ops.updateModel(
          request.params.id,
          {
            priceRub: form.get('price_rub') ?? '',
            priceOutputRub: form.get('price_output_rub') ?? '',
            active: form.get('active') === '1',
            visible: form.get('visible') === '1',
          },
          operatorOf(request),
        ),
      '/console/models?done=model',
      (message, status) => page(request, reply, message, status),
    );
  });
}
