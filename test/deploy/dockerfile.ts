// Just enough of the Dockerfile and .dockerignore formats for the static checks of the container
// tests: instructions grouped by build stage, and which context paths an ignore file leaves in.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');

export interface Instruction {
  line: number;
  /** Upper-case: FROM, RUN, COPY… */
  op: string;
  args: string;
}

export interface Stage {
  name: string;
  base: string;
  instructions: Instruction[];
}

/** The instructions of a Dockerfile (continuation lines joined, comments dropped), by stage. */
export function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  let pending = '';
  let startLine = 0;
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) return;
    if (pending !== '' && line.startsWith('#')) return;
    if (pending === '') startLine = index + 1;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      return;
    }
    const full = (pending + line).trim();
    pending = '';
    const [op, ...rest] = full.split(/\s+/);
    const instruction = { line: startLine, op: op.toUpperCase(), args: rest.join(' ') };
    if (instruction.op === 'FROM') {
      const match = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(instruction.args);
      stages.push({ name: match?.[2] ?? String(stages.length), base: match?.[1] ?? '', instructions: [] });
    } else if (instruction.op !== 'ARG' || stages.length > 0) {
      stages.at(-1)?.instructions.push(instruction);
    }
  });
  return stages;
}

/** COPY's options, sources and destination (shell form only; JSON form is not used here). */
export function parseCopy(args: string): { from?: string; sources: string[]; dest: string } {
  const words = args.split(/\s+/);
  const options = words.filter((word) => word.startsWith('--'));
  const paths = words.filter((word) => !word.startsWith('--'));
  const from = options.find((option) => option.startsWith('--from='))?.slice('--from='.length);
  return { from, sources: paths.slice(0, -1), dest: paths.at(-1) ?? '' };
}

/** The exec-form array of CMD, ENTRYPOINT or HEALTHCHECK … CMD. */
export function execForm(args: string): string[] {
  const json = args.slice(args.indexOf('['));
  return JSON.parse(json) as string[];
}

function globToRegExp(pattern: string): RegExp {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*' && pattern[i + 1] === '*') {
      out += '.*';
      i++;
      if (pattern[i + 1] === '/') i++;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  // A pattern names a path and everything under it.
  return new RegExp(`^${out}(/.*)?$`);
}

/** Whether .dockerignore keeps `path` (relative to the context) in the build context. */
export function dockerignoreKeeps(ignoreText: string, path: string): boolean {
  let kept = true;
  for (const raw of ignoreText.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const negated = line.startsWith('!');
    const pattern = (negated ? line.slice(1) : line).replace(/^\/+/, '').replace(/\/+$/, '');
    if (globToRegExp(pattern).test(path)) kept = negated;
  }
  return kept;
}

export function readRepoFile(path: string): string {
  return readFileSync(join(ROOT, path), 'utf8');
}

/** Every setting name src/config.ts reads from the environment. */
export function settingNames(): Set<string> {
  const source = readRepoFile('src/config.ts');
  const names = new Set<string>();
  for (const match of source.matchAll(
    /\benv\.([A-Z][A-Z0-9_]*)|\b(?:int|bool|intList)\('([A-Z][A-Z0-9_]*)'/g,
  ))
    names.add(match[1] ?? match[2]);
  for (const match of source.matchAll(/\benv\[['"]([A-Z][A-Z0-9_]*)['"]\]/g)) names.add(match[1]);
  return names;
}
