// Which external services the tests can use. In CI (CI=true) PostgreSQL and Redis are required, and
// their absence fails the run loudly; on a laptop without them those tests are skipped, and the
// global setup says so.
import net from 'node:net';

export const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

function canConnect(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port) }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.setTimeout(1000, () => {
      socket.destroy();
      resolve(false);
    });
    socket.on('error', () => resolve(false));
  });
}

export async function serviceAvailability(): Promise<{ postgres: boolean; redis: boolean }> {
  const [postgres, redis] = await Promise.all([canConnect(PG_URL), canConnect(REDIS_URL)]);
  return { postgres, redis };
}

/** Set by the global setup so every test file knows without probing again. */
export const HAVE_POSTGRES = process.env.GENGATE_TEST_PG === '1';
export const HAVE_REDIS = process.env.GENGATE_TEST_REDIS === '1';
