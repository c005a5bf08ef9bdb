// A strict reader of the Prometheus text exposition format (0.0.4), for tests. prom-client 15 writes
// the format but has no parser, so tests read /metrics with this one and compare it with the
// registry's getMetricsAsJSON(). Anything it does not understand throws, naming the line.

export interface Sample {
  /** The sample's own name (a histogram's name_bucket, name_sum, name_count). */
  name: string;
  /** The family (# TYPE) the sample belongs to. */
  family?: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: string;
  help: string;
}

export interface Exposition {
  families: Map<string, Family>;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const SUFFIXES: Record<string, string[]> = {
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['_sum', '_count', ''],
};

function parseValue(text: string, line: string): number {
  if (text === '+Inf') return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  if (text === 'NaN' || text === 'Nan') return Number.NaN;
  if (!/^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`bad value in: ${line}`);
  return Number(text);
}

function unescapeText(text: string, escapes: Record<string, string>, line: string): string {
  return text.replace(/\\(.)/g, (_, c: string) => {
    const out = escapes[c];
    if (out === undefined) throw new Error(`bad escape \\${c} in: ${line}`);
    return out;
  });
}

/** Reads `{a="x",b="y"}` starting at text[0] === '{'; returns the labels and the rest of the line. */
function parseLabels(text: string, line: string): { labels: Record<string, string>; rest: string } {
  const labels: Record<string, string> = {};
  let i = 1;
  for (;;) {
    if (text[i] === '}') return { labels, rest: text.slice(i + 1) };
    const eq = text.indexOf('=', i);
    if (eq < 0 || text[eq + 1] !== '"') throw new Error(`bad labels in: ${line}`);
    const name = text.slice(i, eq);
    if (!LABEL_NAME.test(name)) throw new Error(`bad label name ${name} in: ${line}`);
    let j = eq + 2;
    let raw = '';
    while (text[j] !== '"') {
      if (j >= text.length) throw new Error(`unterminated label value in: ${line}`);
      if (text[j] === '\\') {
        raw += text.slice(j, j + 2);
        j += 2;
      } else raw += text[j++];
    }
    if (name in labels) throw new Error(`duplicate label ${name} in: ${line}`);
    labels[name] = unescapeText(raw, { '\\': '\\', '"': '"', n: '\n' }, line);
    i = j + 1;
    if (text[i] === ',') i++;
    else if (text[i] !== '}') throw new Error(`bad labels in: ${line}`);
  }
}

export function parseExposition(text: string): Exposition {
  const families = new Map<string, Family>();
  const samples: Sample[] = [];
  const familyOf = (name: string): string | undefined => {
    if (families.has(name)) return name;
    for (const [familyName, family] of families)
      for (const suffix of SUFFIXES[family.type] ?? [])
        if (suffix && name === familyName + suffix) return familyName;
    return undefined;
  };
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      const match = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (!match) continue; // a plain comment
      const [, kind, name, rest] = match;
      if (!NAME.test(name)) throw new Error(`bad metric name in: ${line}`);
      const family = families.get(name) ?? { name, type: 'untyped', help: '' };
      if (kind === 'HELP') family.help = unescapeText(rest, { '\\': '\\', n: '\n' }, line);
      else {
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest))
          throw new Error(`bad type in: ${line}`);
        family.type = rest;
      }
      families.set(name, family);
      continue;
    }
    const nameEnd = line.search(/[{ ]/);
    if (nameEnd <= 0) throw new Error(`bad sample: ${line}`);
    const name = line.slice(0, nameEnd);
    if (!NAME.test(name)) throw new Error(`bad metric name in: ${line}`);
    let rest = line.slice(nameEnd);
    let labels: Record<string, string> = {};
    if (rest.startsWith('{')) ({ labels, rest } = parseLabels(rest, line));
    const parts = rest.trim().split(/\s+/);
    if (parts.length < 1 || parts.length > 2 || parts[0] === '') throw new Error(`bad sample: ${line}`);
    samples.push({ name, family: familyOf(name), labels, value: parseValue(parts[0], line) });
  }
  return { families, samples };
}

/** A canonical text of a sample's name, labels (sorted) and, when given, value: for comparisons. */
export function sampleKey(sample: { name: string; labels: Record<string, string>; value?: number }): string {
  const labels = Object.keys(sample.labels)
    .sort()
    .map((name) => `${name}=${JSON.stringify(sample.labels[name])}`)
    .join(',');
  return `${sample.name}{${labels}}${sample.value === undefined ? '' : ` ${sample.value}`}`;
}
