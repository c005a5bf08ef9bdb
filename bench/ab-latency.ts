// The added chat latency at one connection of two gengate builds, measured in ONE run: the direct
// upstream, the other build and this checkout's build are interleaved round by round, so the noise
// of a shared VM falls on all three alike (alternating whole bench runs could not resolve 0.1 ms).
//   git worktree add --detach /tmp/gengate-old <commit> && ln -s "$PWD/node_modules" /tmp/gengate-old/
//   (cd /tmp/gengate-old && npm run build) && npm run build
//   node bin/run-ts.mjs bench/ab-latency.ts /tmp/gengate-old [rounds, 6] [postgres|sqlite]
// Each round sends 200 sequential requests to each system, after 200 of warm-up each.
import { startGengate } from './gengate.js';
import { LoadGenerator } from './load.js';
import { ProcessGroup } from './processes.js';
import { CHAT_PATH, chatBody } from './scenarios/chat-targets.js';
import { startFakeUpstream } from './services.js';

const [otherTree, roundsArg, engineArg] = process.argv.slice(2);
if (!otherTree) throw new Error('usage: bench/ab-latency.ts <checkout of the other build> [rounds] [engine]');
const rounds = Number(roundsArg ?? 6);
const engine = engineArg === 'sqlite' ? 'sqlite' : 'postgres';
const CHAT_MODEL = 'gpt-4o-mini';

const group = new ProcessGroup();
try {
  const upstream = await startFakeUpstream(group, 67);
  const start = (purpose: string, checkout?: string) =>
    startGengate(group, {
      engine,
      role: 'api',
      upstreamBaseUrl: `${upstream.origin}/v1`,
      chatModel: CHAT_MODEL,
      purpose,
      checkout,
    });
  const other = await start('other build', otherTree);
  const mine = await start('this build');
  const load = await LoadGenerator.start(group);
  const target = (name: string, origin: string, authorization: string) => ({
    name,
    origin,
    path: CHAT_PATH,
    method: 'POST' as const,
    headers: { 'content-type': 'application/json', authorization },
    body: chatBody(CHAT_MODEL, false),
  });
  const summaries = await load.latency({
    targets: [
      target('direct', upstream.origin, 'Bearer sk-fake'),
      target('other', other.origin, other.auth.authorization),
      target('this', mine.origin, mine.auth.authorization),
    ],
    warmup: 200,
    rounds,
    perRound: 200,
  });
  const direct = summaries.direct.p50Ms;
  const added = (name: 'other' | 'this') =>
    `${(summaries[name].p50Ms - direct).toFixed(3)} ms (${summaries[name].failures} failed)`;
  console.log(
    `${engine}, ${rounds} rounds: direct p50 ${direct.toFixed(3)} ms; added p50: other build ${added('other')}, this build ${added('this')}`,
  );
} finally {
  await group.stopAll();
}
