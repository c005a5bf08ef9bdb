import { IN_CI, serviceAvailability } from './services.js';

export default async function setup() {
  const { postgres, redis } = await serviceAvailability();
  const missing = [!postgres && 'PostgreSQL (127.0.0.1:5432)', !redis && 'Redis (127.0.0.1:6379)'].filter(
    Boolean,
  );
  if (missing.length > 0) {
    if (IN_CI)
      throw new Error(
        `CI=true but ${missing.join(' and ')} not reachable: the PostgreSQL/Redis tests must run in CI`,
      );
    console.warn(
      `\n[gengate tests] ${missing.join(' and ')} not reachable: SKIPPING the tests that need them.\n`,
    );
  }
  process.env.GENGATE_TEST_PG = postgres ? '1' : '0';
  process.env.GENGATE_TEST_REDIS = redis ? '1' : '0';
}
