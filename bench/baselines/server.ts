// The bare baselines in one Fastify process (each route is measured on its own):
//   POST /v1/chat/completions  Fastify + undici pass-through to the fake upstream
//   POST /v1/messages          the same for Anthropic's Messages API (streams piped through)
//   POST /raw/v1/messages      the same bytes relayed by node:http alone, before Fastify (raw-relay.ts)
//   POST /generate             parse the same JSON as gengate's /generate, answer 202
//   GET  /tasks/:id            answer a task object
// Run as a child: `node bin/run-ts.mjs bench/baselines/server.ts <upstream base url>`; prints `ready <port>`.
import http from 'node:http';
import Fastify from 'fastify';
import { announceReady } from '../ready.js';
import { registerChatPassthrough } from './chat-passthrough.js';
import { registerBareGenerate } from './generate.js';
import { registerMessagesPassthrough } from './messages-passthrough.js';
import { RAW_RELAY_PATH, rawRelay } from './raw-relay.js';
import { registerBareTaskGet } from './tasks.js';

const upstreamBaseUrl = process.argv[2];
if (!upstreamBaseUrl)
  throw new Error('usage: baselines/server.ts <upstream base url, e.g. http://127.0.0.1:PORT/v1>');

const relay = rawRelay(upstreamBaseUrl);
const app = Fastify({
  logger: false,
  // The raw relay answers on the same port without passing through Fastify at all.
  serverFactory: (handler) =>
    http.createServer((request, response) =>
      request.url === RAW_RELAY_PATH && request.method === 'POST'
        ? relay(request, response)
        : handler(request, response),
    ),
});
registerChatPassthrough(app, upstreamBaseUrl);
registerMessagesPassthrough(app, upstreamBaseUrl);
registerBareGenerate(app);
registerBareTaskGet(app);

await app.listen({ host: '127.0.0.1', port: 0 });
announceReady((app.server.address() as { port: number }).port);
process.once('SIGTERM', () => process.exit(0));
