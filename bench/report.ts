// Renders the run as Markdown and JSON into bench/results/latest.{md,json}.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatNumber, formatTarget } from './targets.js';
import type { BenchReport, Figure, LoadStats, Measurement } from './types.js';

const ENGINE_LABEL = { sqlite: 'SQLite', postgres: 'PostgreSQL + Redis' } as const;

function engineLabel(engine: Figure['engine']): string {
  return engine ? ENGINE_LABEL[engine] : '—';
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function formatValue(figure: Figure): string {
  if (figure.value === null) return '—';
  return figure.unit === '×'
    ? `${formatNumber(figure.value)}×`
    : `${formatNumber(figure.value)} ${figure.unit}`;
}

export function renderFigureLine(figure: Figure): string {
  const engine = figure.engine ? ` [${engineLabel(figure.engine)}]` : '';
  const note = figure.note ? ` (${figure.note})` : '';
  return `${figure.verdict.padEnd(4)}  ${figure.label}${engine}: ${formatValue(figure)}, target ${formatTarget(figure.target, figure.unit)}${note}`;
}

function measurementRow(m: Measurement): string {
  const engine = engineLabel(m.engine);
  if (m.load) {
    const { load } = m;
    const failed = load.non2xx + load.errors + load.timeouts;
    return `| ${cell(m.scenario)} | ${cell(m.system)} | ${engine} | ${formatNumber(load.requestsPerSec)} req/s | ${formatNumber(load.p50Ms)} | ${formatNumber(load.p99Ms)} | ${load.ok.toLocaleString('en-US')} | ${failed} | ${cell(generatorCell(load))} |`;
  }
  if (m.latency) {
    const { latency } = m;
    return `| ${cell(m.scenario)} | ${cell(m.system)} | ${engine} | 1 connection, sequential | ${formatNumber(latency.p50Ms)} | ${formatNumber(latency.p99Ms)} | ${latency.count.toLocaleString('en-US')} | ${latency.failures} | bench client |`;
  }
  if (m.stream) {
    const { stream } = m;
    return `| ${cell(m.scenario)} | ${cell(m.system)} | ${engine} | ${formatNumber(stream.chunksPerSec)} chunks/s; first chunk p50/p99 → | ${formatNumber(stream.ttfcP50Ms)} | ${formatNumber(stream.ttfcP99Ms)} | ${stream.streams.toLocaleString('en-US')} streams | ${stream.failures} | bench client |`;
  }
  return `| ${cell(m.scenario)} | ${cell(m.system)} | ${engine} | ${cell(describeExtra(m))} | — | — | — | — | — |`;
}

/** The load generator and its CPU (% of one core) over the run: is it the bottleneck? */
function generatorCell(load: LoadStats): string {
  if (!load.generator) return '—';
  const { tool, cpuPct } = load.generator;
  return `${tool}, ${cpuPct === null ? '?' : formatNumber(Math.round(cpuPct))}% CPU`;
}

function describeExtra(m: Measurement): string {
  return Object.entries(m.extra ?? {})
    .map(([k, v]) => `${k} ${typeof v === 'number' ? formatNumber(v) : v}`)
    .join(', ');
}

export function renderMarkdown(report: BenchReport): string {
  const { meta, settings } = report;
  const counts = { PASS: 0, MISS: 0, SKIP: 0, INFO: 0 };
  for (const f of report.figures) counts[f.verdict]++;
  const lines = [
    `# gengate benchmark (${settings.quick ? 'quick' : 'full'} run)`,
    '',
    `- started ${meta.startedAt}, finished ${meta.finishedAt}`,
    `- commit \`${meta.commit}\`, Node ${meta.node}, ${meta.cpus} CPU(s) (${meta.cpuModel}), ${meta.platform}, ${formatNumber(meta.totalMemMb)} MB RAM`,
    `- load average at start: ${meta.loadAverageAtStart.map((v) => v.toFixed(2)).join(' / ')} (everything below shares these CPUs: the load generator, the fake upstream, the systems measured)`,
    `- settings: ${settings.connections} connections, ${settings.durationSec} s per load run after a ${settings.warmupSec} s warm-up; ` +
      `latency ${settings.latencyRounds}×${settings.latencyPerRound} sequential requests per system (interleaved) after ${settings.latencyWarmup.toLocaleString('en-US')} of warm-up each; ` +
      `streaming ${settings.streamRounds}×${settings.streamsPerRound} streams of ${settings.streamChunks} chunks (Messages: ${settings.streamRounds}×${settings.messagesStreamsPerRound}); ` +
      `${settings.tasks.toLocaleString('en-US')} tasks (timeout ${settings.taskTimeoutSec} s); GET /tasks/{id} over ${settings.readTasks} completed tasks; chat model \`${settings.chatModel}\`, task model \`${settings.taskModel}\`; ` +
      `engines: SQLite${settings.pg ? ', PostgreSQL + Redis' : ''}`,
    `- Portkey gateway: ${meta.portkeyVersion ?? 'not available'}`,
    `- verdicts: ${counts.PASS} PASS, ${counts.MISS} MISS, ${counts.SKIP} SKIP, ${counts.INFO} informational`,
    '',
    '## Targets',
    '',
    '| figure | engine | measured | value | target | verdict |',
    '|---|---|---|---|---|---|',
    ...report.figures.map(
      (f) =>
        `| ${cell(f.label)} | ${engineLabel(f.engine)} | ${cell(f.detail)} | ${formatValue(f)} | ${formatTarget(f.target, f.unit)} | **${f.verdict}** |`,
    ),
    '',
    '## Measurements',
    '',
    `Latencies in ms. Timed load runs come from ${settings.loadGenerator === 'wrk' ? 'wrk' : 'autocannon (wrk was not installed)'}, runs of a number of requests from autocannon; the`,
    "1-connection and streaming figures come from the bench's own clients (µs resolution). The last",
    'column is the CPU the load generator used over the run, in % of one core (the machine has',
    `${meta.cpus}): a generator near 100% per thread would cap what it measures.`,
    '',
    '| scenario | system | engine | throughput | p50 | p99 | ok | failed | load generator (CPU, % of one core) |',
    '|---|---|---|---|---|---|---|---|---|',
    ...report.measurements.map(measurementRow),
  ];
  // A load run with scenario numbers (the task run) shows its load above and its numbers here.
  const details = report.measurements.filter((m) => m.load && m.extra);
  if (details.length > 0) {
    lines.push('', '## Task runs', '');
    for (const m of details) lines.push(`- ${m.scenario} [${engineLabel(m.engine)}]: ${describeExtra(m)}`);
  }
  const notes = report.figures.filter((f) => f.note);
  if (notes.length > 0) {
    lines.push('', '## Notes', '');
    for (const f of notes) lines.push(`- **${f.verdict}** ${f.label} [${engineLabel(f.engine)}]: ${f.note}`);
  }
  return `${lines.join('\n')}\n`;
}

export function writeReport(report: BenchReport, dir: string): { markdown: string; json: string } {
  mkdirSync(dir, { recursive: true });
  const markdown = join(dir, 'latest.md');
  const json = join(dir, 'latest.json');
  writeFileSync(markdown, renderMarkdown(report));
  writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
  return { markdown, json };
}
