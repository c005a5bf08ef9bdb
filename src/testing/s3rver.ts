// A real S3-compatible server for tests: s3rver in this process, on a random loopback port, storing
// into a fresh temporary directory. It also counts the bytes that cross its sockets, so a test can
// tell a streamed transfer from one buffered whole.
import { mkdtempSync, rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

export interface S3rverHarness {
  endpoint: string;
  bucket: string;
  /** Bytes the server has read from / written to its sockets so far (all connections). */
  wire(): { read: number; written: number };
  close(): Promise<void>;
}

export async function startS3rver(bucket = 'results'): Promise<S3rverHarness> {
  const directory = mkdtempSync(join(tmpdir(), 'gengate-s3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  const sockets = new Set<Socket>();
  let closed = { read: 0, written: 0 };
  server.httpServer.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => {
      closed = { read: closed.read + socket.bytesRead, written: closed.written + socket.bytesWritten };
      sockets.delete(socket);
    });
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    wire() {
      let { read, written } = closed;
      for (const socket of sockets) {
        read += socket.bytesRead;
        written += socket.bytesWritten;
      }
      return { read, written };
    },
    async close() {
      server.httpServer.closeAllConnections();
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
