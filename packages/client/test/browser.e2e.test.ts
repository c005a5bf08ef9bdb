// The client in a real browser (headless Chromium): bundled for the browser with esbuild, served
// from another origin, it runs a task against a real gengate through CORS, streams the result into
// a WritableStream and verifies a webhook signature with Web Crypto.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAVE_BROWSER, launchBrowser } from '../../../src/testing/browser.js';
import { startTestServer, type TestServer } from './server.js';

const ENTRY = join(dirname(fileURLToPath(import.meta.url)), '../src/index.ts');

let server: TestServer;
let page: Server;
let pageOrigin: string;
let browser: Browser;
let bundleWarnings: string[] = [];

beforeAll(async () => {
  if (!HAVE_BROWSER) return;
  server = await startTestServer({ corsOrigins: '*' });
  const bundle = await build({
    entryPoints: [ENTRY],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  bundleWarnings = bundle.warnings.map((warning) => warning.text);
  const script = bundle.outputFiles[0]!.text;
  page = createServer((req, res) => {
    if (req.url === '/client.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    else res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>client</title>');
  });
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  pageOrigin = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  page?.closeAllConnections();
  await new Promise<void>((resolve) => (page ? page.close(() => resolve()) : resolve()));
  await server?.stop();
});

describe.skipIf(!HAVE_BROWSER)('in a browser', () => {
  it('bundles for the browser without warnings (node:fs stays out of the bundle)', () => {
    expect(bundleWarnings).toEqual([]);
  });

  it('runs a task across origins, downloads into a WritableStream and verifies a webhook', async () => {
    const key = await server.newKey(100);
    const secret = await server.webhookSecret(key);
    const body = '{"task_id":"t1","status":"failed","error":"Provider billing error"}';
    const headers = {
      'webhook-id': 'msg_browser',
      'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
      'webhook-signature': new Webhook(secret).sign('msg_browser', new Date(), body),
    };
    const tab = await browser.newPage();
    try {
      await tab.goto(pageOrigin);
      // A module script of the page imports the bundle (evaluate's function is rewritten by vitest).
      await tab.addScriptTag({
        type: 'module',
        content: "import * as c from '/client.js'; window.client = c;",
      });
      await tab.waitForFunction(() => 'client' in globalThis);
      const outcome = await tab.evaluate(
        async ({ baseUrl, apiKey, secret, body, headers }) => {
          const { Gengate, verifyWebhook, InsufficientBalanceError } = (globalThis as any).client;
          const gengate = new Gengate({ apiKey, baseUrl });
          const task = await gengate.run(
            { model_name: 'flux-1-1-pro', prompt: 'a fox in a browser' },
            { intervalMs: 100, timeoutMs: 20_000 },
          );
          let bytes = 0;
          await gengate.downloadResult(
            task,
            new WritableStream({
              write(chunk: Uint8Array) {
                bytes += chunk.byteLength;
              },
            }),
          );
          const event = await verifyWebhook(body, new Headers(headers), secret);
          const forged = await verifyWebhook(body.replace('t1', 't2'), new Headers(headers), secret).then(
            () => 'accepted',
            (error: Error) => error.name,
          );
          const poor = new Gengate({ apiKey: 'sk_live_not_a_key', baseUrl });
          const denied = await poor.balance().then(
            () => 'no error',
            (error: Error) => `${error.name} ${(error as { status?: number }).status}`,
          );
          return {
            origin: (globalThis as any).location.origin as string,
            status: task.status,
            image: task.result.image_url,
            bytes,
            event,
            forged,
            denied,
            typed: typeof InsufficientBalanceError,
          };
        },
        { baseUrl: server.baseUrl, apiKey: key.secret, secret, body, headers },
      );
      expect(outcome.origin).not.toBe(server.baseUrl);
      expect(outcome.status).toBe('completed');
      const png = Buffer.from(await (await fetch(outcome.image)).arrayBuffer());
      expect(outcome.bytes).toBe(png.length);
      expect(outcome.event).toEqual(JSON.parse(body));
      expect(outcome.forged).toBe('WebhookVerificationError');
      expect(outcome.denied).toBe('AuthenticationError 401');
    } finally {
      await tab.close();
    }
  }, 60_000);
});
