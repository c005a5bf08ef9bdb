// The chaos run's report (Markdown): the seed, the fault schedule, what was sent and what came back,
// and each check with its figures and violations.
import type { CheckResult } from './checks.js';
import type { LoadRecords } from './load.js';
import type { ReceiverStats } from './receiver.js';

export interface FaultEvent {
  /** Seconds since the start of the run. */
  at: number;
  target: string;
  action: string;
}

export interface ReportInput {
  seed: number;
  schema: string;
  durationS: number;
  drainS: number;
  totalS: number;
  faults: FaultEvent[];
  results: CheckResult[];
  records: LoadRecords;
  receiver: ReceiverStats;
  cliTopUps: number;
  /** Errors the processes logged, by role and message, most frequent first. */
  loggedErrors: [string, number][];
  starts: Record<string, number>;
}

function countBy<T>(items: T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

const figures = (values: Record<string, number | string>) =>
  Object.entries(values)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');

export function formatReport(input: ReportInput): string {
  const failed = input.results.filter((r) => r.violations.length > 0);
  const { tasks, chats } = input.records;
  const lastStatus = (answers: { status: number }[]) => String(answers[answers.length - 1]?.status ?? 'none');
  const lines = [
    `# Chaos run, seed ${input.seed}: ${failed.length === 0 ? 'PASS' : `FAIL (${failed.length} checks)`}`,
    '',
    `- ${new Date().toISOString()}, node ${process.version}; PostgreSQL schema \`${input.schema}\`, a private Redis`,
    `- 2 API + 2 worker processes; ${input.durationS} s of load and faults, drained in ${input.drainS.toFixed(1)} s, ${input.totalS.toFixed(0)} s in all`,
    `- reproduce the choices: \`npm run test:chaos -- --seed ${input.seed}\``,
    '',
    '## Faults',
    '',
    `${input.faults.filter((f) => f.target !== 'redis').length} SIGKILLs, ${input.faults.filter((f) => f.target === 'redis').length} Redis restart; process starts: ${figures(input.starts)}`,
    '',
    '| at (s) | target | action |',
    '|---:|---|---|',
    ...input.faults.map((f) => `| ${f.at.toFixed(1)} | ${f.target} | ${f.action} |`),
    '',
    '## Load',
    '',
    `- task requests: ${tasks.length} (${figures(countBy(tasks, (t) => t.directive))})`,
    `- last answer per task request: ${figures(countBy(tasks, (t) => lastStatus(t.answers)))} (0 = connection lost to a killed process)`,
    `- with an Idempotency-Key: ${tasks.filter((t) => t.idempotencyKey).length}, answers sent for them: ${tasks.filter((t) => t.idempotencyKey).reduce((n, t) => n + t.answers.length, 0)}`,
    `- chat requests: ${chats.length} (modes: ${figures(countBy(chats, (c) => c.mode))}; outcomes: ${figures(countBy(chats, (c) => c.outcome))})`,
    `- requests without an answer, by cause: ${figures(input.records.lost)}`,
    `- CLI top-ups: ${input.cliTopUps}`,
    `- webhook receiver: ${figures({ ...input.receiver })}`,
    '',
    '## Checks',
    '',
    '| check | result | figures |',
    '|---|---|---|',
    ...input.results.map(
      (r) =>
        `| ${r.name} | ${r.violations.length === 0 ? 'PASS' : `FAIL (${r.violations.length})`} | ${figures(r.figures)} |`,
    ),
  ];
  lines.push('', '## Errors logged by the processes', '');
  if (input.loggedErrors.length === 0) lines.push('none');
  for (const [message, count] of input.loggedErrors.slice(0, 20)) lines.push(`- ${count}× ${message}`);
  for (const r of failed) {
    lines.push('', `### ${r.name}`, '', ...r.violations.map((v) => `- ${v}`));
  }
  return `${lines.join('\n')}\n`;
}
