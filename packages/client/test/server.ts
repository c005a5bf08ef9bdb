// A real gengate for the client's tests: the in-process app on a loopback port, with the task runner
// and the webhook sender, on SQLite in a private directory.
import type { Config } from '../../../src/config.js';
import { ADMIN_TOKEN, type TestKey } from '../../../src/testing/app.js';
import {
  createTaskTestApp,
  expectLedgerClean,
  freePort,
  type TaskTestApp,
} from '../../../src/testing/tasks.js';
import type { RunningWorker } from '../../../src/workers/index.js';
import { startWebhookSender } from '../../../src/workers/webhook-sender.js';

export interface TestServer {
  app: TaskTestApp;
  /** http://127.0.0.1:PORT */
  baseUrl: string;
  newKey(balanceRub?: number): Promise<TestKey>;
  /** The account's `whsec_…` secret, as the admin API shows it. */
  webhookSecret(key: TestKey): Promise<string>;
  /** Turns maintenance mode on or off through the admin API. */
  maintenance(enabled: boolean): Promise<void>;
  stop(): Promise<void>;
}

export async function startTestServer(config: Partial<Config> = {}): Promise<TestServer> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const app = await createTaskTestApp({ config: { port, publicUrl: baseUrl, ...config } });
  const sender: RunningWorker = startWebhookSender(app.ctx, (message, error) =>
    console.error(message, error),
  );
  await app.http.listen({ host: '127.0.0.1', port });
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
  return {
    app,
    baseUrl,
    newKey: (balanceRub = 1000) => app.newKey({ balanceRub }),
    async webhookSecret(key) {
      const response = await fetch(`${baseUrl}/admin/accounts/${key.messagingId}`, { headers: admin });
      if (!response.ok) throw new Error(`GET /admin/accounts answered ${response.status}`);
      return ((await response.json()) as { webhook_secret: string }).webhook_secret;
    },
    async maintenance(enabled) {
      const response = await fetch(`${baseUrl}/admin/maintenance`, {
        method: 'PUT',
        headers: admin,
        body: JSON.stringify({ enabled }),
      });
      if (!response.ok) throw new Error(`PUT /admin/maintenance answered ${response.status}`);
    },
    async stop() {
      await sender.stop();
      await expectLedgerClean(app);
      await app.dispose();
    },
  };
}

/** Tasks of the key's account, as the server stores them (not through the client under test). */
export async function tasksOfAccount(server: TestServer, key: TestKey): Promise<string[]> {
  const rows = await server.app.ctx.storage.db
    .selectFrom('tasks')
    .select('id')
    .where('account_id', '=', key.accountId)
    .execute();
  return rows.map((row) => row.id);
}
