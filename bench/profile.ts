// Where gengate spends its CPU under load: `--profile` runs each gengate child with --cpu-prof, and
// this summarizes a .cpuprofile by self time, per function and per module (a package under
// node_modules, a directory of src/, or a V8/Node internal), for bench/NOTES.md.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  name: string;
  ms: number;
  share: number;
}

export interface ProfileSummary {
  totalMs: number;
  functions: SelfTime[];
  modules: SelfTime[];
}

/** The module a frame belongs to: `fastify`, `src/storage`, `node:internal`, `(garbage collector)`. */
export function moduleOf(url: string, functionName: string, root = ''): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return url.startsWith('node:internal') ? 'node:internal' : url;
  const path = url.startsWith('file://') ? decodeURIComponent(new URL(url).pathname) : url;
  const nm = path.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const parts = path.slice(nm + '/node_modules/'.length).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  const rel = root ? relative(root, path) : path;
  const dirs = rel.split('/');
  return dirs[0] === 'src' && dirs.length > 2 ? `src/${dirs[1]}` : dirs.slice(0, 2).join('/');
}

function top(map: Map<string, number>, totalMs: number, count: number): SelfTime[] {
  return [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, ms]) => ({ name, ms, share: totalMs > 0 ? ms / totalMs : 0 }));
}

/** `skipMs`: leave out the first ms of the profile (start-up: loading modules, migrating, seeding). */
export function summarizeProfile(profile: CpuProfile, root = '', count = 15, skipMs = 0): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const functions = new Map<string, number>();
  const modules = new Map<string, number>();
  let totalMs = 0;
  let elapsedMs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]);
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    elapsedMs += ms;
    if (!node || ms <= 0 || elapsedMs <= skipMs) continue;
    totalMs += ms;
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url
      ? `${url.startsWith('file://') && root ? relative(root, new URL(url).pathname) : url}:${lineNumber + 1}`
      : '';
    const fn = `${functionName || '(anonymous)'}${where ? ` ${where}` : ''}`;
    functions.set(fn, (functions.get(fn) ?? 0) + ms);
    const mod = moduleOf(url, functionName, root);
    modules.set(mod, (modules.get(mod) ?? 0) + ms);
  }
  // Idle time is the process waiting for work, not work.
  const idle = modules.get('(idle)') ?? 0;
  modules.delete('(idle)');
  functions.delete('(idle)');
  const busyMs = totalMs - idle;
  return { totalMs: busyMs, functions: top(functions, busyMs, count), modules: top(modules, busyMs, count) };
}

export function renderProfileSummary(title: string, summary: ProfileSummary): string {
  const pct = (share: number) => `${(share * 100).toFixed(1)}%`;
  return [
    `### ${title} (${(summary.totalMs / 1000).toFixed(1)} s of CPU after start-up, idle excluded)`,
    '',
    '| module | self time |',
    '|---|---|',
    ...summary.modules.map((m) => `| ${m.name} | ${pct(m.share)} |`),
    '',
    '| function | self time |',
    '|---|---|',
    ...summary.functions.map((f) => `| \`${f.name}\` | ${pct(f.share)} |`),
    '',
  ].join('\n');
}

/**
 * Node names profiles CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile; thread 0 is the main thread,
 * the one serving requests (tsx's module loader runs on a thread of its own).
 */
export function isMainThreadProfile(file: string): boolean {
  return /^CPU\.\d+\.\d+\.\d+\.0\.\d+\.cpuprofile$/.test(file);
}

/** Written beside a process's profile by the bench: how long the process took to become ready. */
export const STARTUP_FILE = 'startup.json';

/** The main-thread profile in each subdirectory of `dir` (one per gengate process), start-up left out. */
export function summarizeProfiles(dir: string, root: string): { file: string; summary: ProfileSummary }[] {
  const found: { file: string; summary: ProfileSummary }[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const sub = join(dir, entry.name);
    const files = readdirSync(sub);
    const startup = files.includes(STARTUP_FILE)
      ? JSON.parse(readFileSync(join(sub, STARTUP_FILE), 'utf8'))
      : {};
    for (const file of files.filter(isMainThreadProfile)) {
      const profile = JSON.parse(readFileSync(join(sub, file), 'utf8'));
      found.push({
        file: `${entry.name}/${file}`,
        summary: summarizeProfile(profile, root, 15, startup.readyAfterMs ?? 0),
      });
    }
  }
  return found;
}
