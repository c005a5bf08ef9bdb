// Undelivered webhooks (out of attempts), each with a redeliver button; redelivery from a task's
// page comes back to that page.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { card, pageHeader } from '../../web/html.js';
import { formBody, sendHtml } from '../../web/http.js';
import { CONSOLE_ROUTE, operatorOf } from '../console-context.js';
import { csrfField, renderConsolePage } from '../layout.js';
import { doneFlash } from './common.js';
import { deliveriesTable } from './tasks.js';

export function registerWebhookPages(app: FastifyInstance, ctx: AppContext): void {
  const ops = ctx.operator.console;

  app.get('/console/webhooks', CONSOLE_ROUTE, async (request, reply) => {
    const rows = await ops.undeliveredWebhooks();
    const body = `${pageHeader('Undelivered webhooks', 'Deliveries that ran out of attempts, newest first')}${doneFlash((request.query as Record<string, unknown>).done)}
${card('', deliveriesTable(rows, csrfField(request.console), 'list').replace('No webhook for this task.', 'Every webhook was delivered.'))}`;
    return sendHtml(
      reply,
      200,
      renderConsolePage({ title: 'Webhooks', active: 'webhooks', session: request.console, body }),
    );
  });

  app.post<{ Params: { id: string } }>(
    '/console/webhooks/:id/redeliver',
    CONSOLE_ROUTE,
    async (request, reply) => {
      const delivery = await ops.redeliver(request.params.id, operatorOf(request));
      const back = formBody(request).get('back') ?? '';
      const to = back.startsWith('task:')
        ? `/console/tasks/${encodeURIComponent(delivery.task_id)}`
        : '/console/webhooks';
      return reply.redirect(`${to}?done=redelivered`, 303);
    },
  );
}
