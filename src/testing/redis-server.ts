// A private redis-server for fault tests: its own random port, no persistence, stopped by its own
// PID. It can be killed (SIGKILL, like a crash), restarted on the same port, frozen (SIGSTOP: the
// socket stays open but nothing answers) and thawed. Never the machine's shared Redis.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import net from 'node:net';

export const HAVE_REDIS_SERVER = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;

export async function freeTcpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export class RedisServer {
  private child: ChildProcess | undefined;
  private output = '';

  private constructor(readonly port: number) {}

  static async start(port?: number): Promise<RedisServer> {
    const server = new RedisServer(port ?? (await freeTcpPort()));
    await server.restart();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Starts the server (again) on its port; resolves once it accepts connections. */
  async restart(): Promise<void> {
    if (this.running) throw new Error('redis-server is already running');
    this.output = '';
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--daemonize',
        'no',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.child = child;
    const keep = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString()).slice(-4000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const deadline = Date.now() + 10_000;
    while (!/Ready to accept connections/.test(this.output)) {
      if (!this.running) throw new Error(`redis-server exited:\n${this.output}`);
      if (Date.now() > deadline) throw new Error(`redis-server not ready:\n${this.output}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** SIGKILL: the server is gone at once, as in a crash; its data (no persistence) with it. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // A frozen process would not run its exit path, but SIGKILL needs no cooperation.
    child.kill('SIGKILL');
    await exited;
  }

  /** SIGSTOP: connections stay open, nothing answers. */
  freeze(): void {
    this.child?.kill('SIGSTOP');
  }

  thaw(): void {
    this.child?.kill('SIGCONT');
  }
}
