// Maintenance mode: every API endpoint answers 503 while it is on; the admin API, the console,
// /healthz and /metrics keep working and workers finish the tasks already running.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { badge, card, pageHeader } from '../../web/html.js';
import { formBody, sendHtml } from '../../web/http.js';
import { CONSOLE_ROUTE, operatorOf } from '../console-context.js';
import { csrfField, renderConsolePage } from '../layout.js';
import { doneFlash } from './common.js';

export function registerMaintenancePages(app: FastifyInstance, ctx: AppContext): void {
  const ops = ctx.operator.console;

  app.get('/console/maintenance', CONSOLE_ROUTE, async (request, reply) => {
    const on = await ops.maintenanceOn();
    const body = `${pageHeader('Maintenance mode', '')}${doneFlash((request.query as Record<string, unknown>).done)}
${card(
  '',
  `<p>Maintenance is ${on ? badge('on', 'warn') : badge('off', 'ok')}.</p>
<p>While it is on, every API endpoint answers 503 with Retry-After. The admin API, this console, /healthz and /metrics keep working, and workers finish the tasks already running.</p>
<form method="post" action="/console/maintenance"${on ? '' : ' data-confirm="Turn maintenance on? New API requests will be refused."'}>${csrfField(request.console)}
<input type="hidden" name="enabled" value="${on ? '0' : '1'}">
<button class="btn ${on ? 'btn-primary' : 'btn-danger'}" type="submit">${on ? 'Turn maintenance off' : 'Turn maintenance on'}</button></form>`,
)}`;
    return sendHtml(
      reply,
      200,
      renderConsolePage({ title: 'Maintenance', active: 'maintenance', session: request.console, body }),
    );
  });

  app.post('/console/maintenance', CONSOLE_ROUTE, async (request, reply) => {
    const enabled = formBody(request).get('enabled') === '1';
    await ops.setMaintenance(enabled, operatorOf(request));
    return reply.redirect(`/console/maintenance?done=${enabled ? 'maintenance_on' : 'maintenance_off'}`, 303);
  });
}
