// The webhook receiver of the chaos run: answers 500 to a share of the attempts (seeded), 204 to the
// others, and remembers every task it acknowledged. Deliveries may repeat; the task id deduplicates.
import http from 'node:http';
import type { Random } from './random.js';

export interface ReceiverStats {
  attempts: number;
  refused: number;
  acknowledged: number;
  malformed: number;
}

export class FlakyReceiver {
  /** task_id → the status of the first acknowledged delivery. */
  readonly acknowledged = new Map<string, string>();
  readonly stats: ReceiverStats = { attempts: 0, refused: 0, acknowledged: 0, malformed: 0 };
  private server: http.Server | undefined;

  constructor(
    private readonly random: Random,
    private readonly failureRate: number,
  ) {}

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        this.stats.attempts++;
        if (this.random.chance(this.failureRate)) {
          this.stats.refused++;
          res.writeHead(500).end('chaos: try again');
          return;
        }
        try {
          const payload = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
            task_id?: string;
            status?: string;
          };
          if (typeof payload.task_id !== 'string') throw new Error('no task_id');
          if (!this.acknowledged.has(payload.task_id))
            this.acknowledged.set(payload.task_id, String(payload.status));
          this.stats.acknowledged++;
        } catch {
          this.stats.malformed++;
        }
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as { port: number };
    return `http://127.0.0.1:${port}/hook`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}
