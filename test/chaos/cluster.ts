// The processes of a chaos run: gengate API and worker processes on one PostgreSQL schema and one
// private Redis, each killable with SIGKILL and restartable; and the CLI, run as its own process.
// Every process this run starts is tracked by PID and stopped by it, never by name.
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
/** The compiled entry point every process runs (build.ts); set once before the first start. */
let entry = resolve(ROOT, 'bin/gengate.mjs');
export function useEntry(path: string): void {
  entry = path;
}
const READY_TIMEOUT_MS = 60_000;

export interface Submission {
  taskId: string;
  stored: boolean;
  jobId: string;
  process: string;
  /** The log line's time (ms): lines of two processes arrive in no particular order. */
  time: number;
}

export class GengateProcess {
  private child: ChildProcess | undefined;
  private tail = '';
  private ready: Promise<void> | undefined;
  starts = 0;
  /** Started and ready, not killed since: a fault only hits processes in this state. */
  serving = false;

  constructor(
    readonly name: string,
    readonly role: 'api' | 'worker',
    private readonly env: Record<string, string>,
    private readonly onSubmission: (s: Submission) => void,
    /** Each error logged by the process (level error or fatal), as `msg: err.message`. */
    private readonly onErrorLogged: (process: string, message: string) => void,
    readonly port?: number,
  ) {}

  get alive(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Starts the process; resolves once it serves (API) or runs its workers (worker). */
  start(): Promise<void> {
    if (this.alive) throw new Error(`${this.name} is already running`);
    this.starts++;
    this.tail = '';
    const env: Record<string, string> = { ...this.env };
    if (this.port !== undefined) {
      env.PORT = String(this.port);
      env.PUBLIC_URL = this.url;
    }
    const child = spawn(process.execPath, [entry, 'serve', '--role', this.role], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    child.once('exit', () => {
      this.serving = false;
    });
    let partial = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      partial += chunk.toString('utf8');
      const lines = partial.split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) this.readLogLine(line);
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      this.tail = (this.tail + chunk.toString('utf8')).slice(-6000);
    });
    const pattern = this.role === 'api' ? /gengate listening on/ : /gengate worker running/;
    this.ready = new Promise<void>((resolveReady, reject) => {
      const started = Date.now();
      const check = setInterval(() => {
        if (pattern.test(this.tail)) {
          clearInterval(check);
          this.serving = true;
          resolveReady();
        } else if (child.exitCode !== null || child.signalCode !== null) {
          clearInterval(check);
          reject(new Error(`${this.name} exited (or was killed) before it was ready:\n${this.tail}`));
        } else if (Date.now() - started > READY_TIMEOUT_MS) {
          clearInterval(check);
          reject(new Error(`${this.name} not ready after ${READY_TIMEOUT_MS} ms:\n${this.tail}`));
        }
      }, 25);
    });
    return this.ready;
  }

  /** SIGKILL, as a crash: no clean-up runs. Resolves once the process is gone. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || !this.alive) return;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGKILL');
    await exited;
  }

  /** SIGTERM, the clean shutdown, at the end of the run (SIGKILL after 10 s). */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || !this.alive) return;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }

  lastOutput(): string {
    return this.tail.split('\n').slice(-20).join('\n');
  }

  private readLogLine(line: string): void {
    if (/"level":(50|60)/.test(line)) {
      try {
        const event = JSON.parse(line) as { msg?: string; err?: { message?: string } };
        this.onErrorLogged(this.name, `${event.msg}: ${event.err?.message ?? ''}`.slice(0, 300));
      } catch {
        this.onErrorLogged(this.name, line.slice(0, 300));
      }
      return;
    }
    if (!line.includes('"task submitted"')) return;
    try {
      const event = JSON.parse(line) as {
        task_id?: string;
        stored?: boolean;
        job_id?: string;
        time?: number;
      };
      if (event.task_id)
        this.onSubmission({
          taskId: event.task_id,
          stored: event.stored === true,
          jobId: String(event.job_id),
          process: this.name,
          time: Number(event.time ?? Date.now()),
        });
    } catch {
      // A line cut by SIGKILL.
    }
  }
}

/** Runs one `gengate` CLI command; resolves with its exit code and output. */
export function runCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [entry, ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.once('exit', (code) => done({ code, stdout, stderr }));
  });
}
