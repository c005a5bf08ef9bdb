// Raw HTTP over a socket, for requests no HTTP client would send (malformed, oversized).
import net from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  raw: string;
}

/**
 * Writes raw bytes on a fresh connection and reads the answer until the server closes it. With `end`,
 * the client half-closes after writing (the server sees EOF, as with a truncated request). A server
 * that gives no answer yields status NaN.
 */
export function rawRequest(
  portNumber: number,
  data: string | Buffer,
  timeoutMs = 3000,
  end = false,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(portNumber, '127.0.0.1');
    const chunks: Buffer[] = [];
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      const raw = Buffer.concat(chunks).toString('utf8');
      const [head, ...rest] = raw.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const at = line.indexOf(':');
        if (at > 0) headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n'), raw });
    };
    const timer = setTimeout(finish, timeoutMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('end', finish);
    socket.on('close', finish);
    // The server may reset the connection while we still write a huge request: keep what came.
    socket.on('error', (error) => (chunks.length > 0 ? finish() : reject(error)));
    if (end) socket.end(data);
    else socket.write(data);
  });
}
