// Whole bench runs of two builds, alternated (A B B A A B …), so slow drifts of a shared VM fall on
// both alike; prints each SQLite figure per run, the medians and B/A. A is the other checkout, B
// this one. Both need their dependencies installed and dist/ built:
//   git worktree add --detach /tmp/gengate-old <commit> && (cd /tmp/gengate-old && npm ci && npm run build)
//   npm run build && node bin/run-ts.mjs bench/ab-bench.ts /tmp/gengate-old [passes, 2] [--only=…]
// Each pass runs both builds once; the reports are kept in bench/results/ab-<time>/.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ROOT } from './processes.js';
import { median } from './stats.js';
import type { BenchReport } from './types.js';

const args = process.argv.slice(2);
const only =
  args.find((a) => a.startsWith('--only=')) ?? '--only=chat,latency,streaming,generate,tasks,messages';
const [otherArg, passesArg] = args.filter((a) => !a.startsWith('--'));
if (!otherArg) throw new Error('usage: bench/ab-bench.ts <checkout of build A> [passes] [--only=…]');
const builds = { A: resolve(otherArg), B: ROOT };
const passes = Number(passesArg ?? 2);
const out = join(ROOT, 'bench/results', `ab-${new Date().toISOString().replace(/[:.]/g, '-')}`);
mkdirSync(out, { recursive: true });

const reports: Record<'A' | 'B', BenchReport[]> = { A: [], B: [] };
for (let pass = 0; pass < passes; pass++) {
  const order: ('A' | 'B')[] = pass % 2 === 0 ? ['A', 'B'] : ['B', 'A'];
  for (const build of order) {
    const tree = builds[build];
    process.stdout.write(`pass ${pass + 1}, build ${build} (${tree}) …\n`);
    const run = spawnSync(process.execPath, ['bin/run-ts.mjs', 'bench/run.ts', only], {
      cwd: tree,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    if (run.status !== 0) throw new Error(`the bench of build ${build} exited with ${run.status}`);
    const saved = join(out, `pass${pass + 1}-${build}.json`);
    copyFileSync(join(tree, 'bench/results/latest.json'), saved);
    reports[build].push(JSON.parse(readFileSync(saved, 'utf8')) as BenchReport);
  }
}

const format = (value: number) => (Math.abs(value) >= 100 ? value.toFixed(0) : value.toPrecision(3));

const lines = [
  `A = ${builds.A}, B = ${builds.B}; ${passes} passes, alternated`,
  '',
  '| figure | unit | A runs | B runs | A median | B median | B/A |',
  '|---|---|---|---|---|---|---|',
];
for (const figure of reports.B[0]?.figures ?? []) {
  if (figure.engine === 'postgres') continue;
  const valuesOf = (build: 'A' | 'B') =>
    reports[build]
      .map((r) => r.figures.find((f) => f.id === figure.id)?.value)
      .filter((v) => typeof v === 'number');
  const a = valuesOf('A');
  const b = valuesOf('B');
  if (a.length === 0 || b.length === 0) continue;
  const ratio = median(b) / median(a);
  lines.push(
    `| ${figure.label} | ${figure.unit} | ${a.map(format).join(', ')} | ${b.map(format).join(', ')} | ${format(median(a))} | ${format(median(b))} | ${ratio.toFixed(2)} |`,
  );
}
process.stdout.write(`${lines.join('\n')}\n\nreports: ${out}\n`);
