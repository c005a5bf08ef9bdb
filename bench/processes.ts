// Child processes of the bench. Each one leads its own process group, so stopping it also stops
// anything it started; every group is tracked and torn down on exit, on failure and on a signal.
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..');
const EXIT_WITH_PARENT = resolve(import.meta.dirname, 'exit-with-parent.cjs');
const TAIL_BYTES = 8192;

export interface SpawnOptions {
  env?: Record<string, string | undefined>;
  /** Adds an IPC channel (for children that talk to the bench through process.send). */
  ipc?: boolean;
}

export class Child {
  private stdout = '';
  private stderr = '';
  private readonly waiters = new Set<() => void>();
  readonly exited: Promise<number | null>;
  exitCode: number | null | undefined = undefined;

  constructor(
    readonly name: string,
    readonly proc: ChildProcess,
  ) {
    const keep = (which: 'stdout' | 'stderr') => (chunk: Buffer) => {
      this[which] = (this[which] + chunk.toString('utf8')).slice(-TAIL_BYTES);
      for (const wake of this.waiters) wake();
    };
    proc.stdout?.on('data', keep('stdout'));
    proc.stderr?.on('data', keep('stderr'));
    this.exited = new Promise((done) =>
      proc.once('exit', (code, signal) => {
        this.exitCode = code ?? (signal ? -1 : null);
        for (const wake of this.waiters) wake();
        done(this.exitCode);
      }),
    );
  }

  get pid(): number {
    return this.proc.pid!;
  }

  get alive(): boolean {
    return this.exitCode === undefined;
  }

  /** The last lines the child printed, for an error message. */
  tail(): string {
    const text = `${this.stdout}\n${this.stderr}`.trim();
    return text.split('\n').slice(-15).join('\n');
  }

  /** Resolves with the first match of `pattern` in the child's stdout or stderr. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
    return new Promise((resolvePromise, reject) => {
      const check = () => {
        const match = pattern.exec(this.stdout) ?? pattern.exec(this.stderr);
        if (match) return finish(() => resolvePromise(match));
        if (!this.alive) {
          return finish(() =>
            reject(
              new Error(`${this.name} exited (code ${this.exitCode}) before it was ready:\n${this.tail()}`),
            ),
          );
        }
      };
      const timer = setTimeout(
        () =>
          finish(() => reject(new Error(`${this.name} not ready after ${timeoutMs} ms:\n${this.tail()}`))),
        timeoutMs,
      );
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        settle();
      };
      this.waiters.add(check);
      check();
    });
  }

  /** waitFor, and a child that never became ready is stopped instead of left running. */
  async ready(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
    try {
      return await this.waitFor(pattern, timeoutMs);
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  signalGroup(signal: NodeJS.Signals): void {
    try {
      process.kill(-this.pid, signal);
    } catch {
      // The group is already gone.
    }
  }

  /** SIGTERM to the whole group, SIGKILL after `graceMs`. */
  async stop(graceMs = 5000): Promise<void> {
    if (!this.alive) return;
    this.signalGroup('SIGTERM');
    const timer = setTimeout(() => this.signalGroup('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
    // Anything the child started and left behind goes with it.
    this.signalGroup('SIGKILL');
  }
}

export class ProcessGroup {
  private readonly children = new Set<Child>();
  private readonly cleanups = new Set<() => Promise<void>>();

  /** Work to do after the children are stopped (temp dirs, database schemas); returns its remover. */
  onTeardown(cleanup: () => Promise<void>): () => void {
    this.cleanups.add(cleanup);
    return () => this.cleanups.delete(cleanup);
  }

  /** Runs `node <args>` from the repository root in a new process group. */
  spawnNode(name: string, args: string[], options: SpawnOptions = {}): Child {
    const stdio: ('pipe' | 'ipc')[] = options.ipc
      ? ['pipe', 'pipe', 'pipe', 'ipc']
      : ['pipe', 'pipe', 'pipe'];
    const proc = spawn(process.execPath, ['-r', EXIT_WITH_PARENT, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...options.env },
      stdio,
      detached: true,
    });
    proc.stdin?.end();
    const child = new Child(name, proc);
    this.children.add(child);
    child.exited.then(() => this.children.delete(child));
    return child;
  }

  /** A TypeScript entry of the bench, run through tsx like the rest of the project. */
  spawnTs(name: string, file: string, args: string[] = [], options: SpawnOptions = {}): Child {
    return this.spawnNode(name, ['bin/run-ts.mjs', file, ...args], options);
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.children].map((child) => child.stop()));
    for (const cleanup of this.cleanups) await cleanup().catch(() => {});
    this.cleanups.clear();
  }

  /** Last resort from a synchronous 'exit' handler: no waiting is possible there. */
  killAllNow(): void {
    for (const child of this.children) child.signalGroup('SIGKILL');
  }

  /** Tears every child down however the bench ends: normally, by an error, or by a signal. */
  installTeardown(): void {
    let tearingDown = false;
    const teardown = async (code: number) => {
      if (tearingDown) return;
      tearingDown = true;
      await this.stopAll().catch(() => this.killAllNow());
      process.exit(code);
    };
    process.once('SIGINT', () => void teardown(130));
    process.once('SIGTERM', () => void teardown(143));
    process.once('uncaughtException', (error) => {
      console.error(error);
      void teardown(1);
    });
    process.once('unhandledRejection', (error) => {
      console.error(error);
      void teardown(1);
    });
    process.once('exit', () => this.killAllNow());
  }
}
