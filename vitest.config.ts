import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'bench/**/*.test.ts', 'packages/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Suites own their databases and ports; two workers match the machine's two cores.
    pool: 'forks',
    maxWorkers: 2,
    env: { NODE_ENV: 'test' },
    globalSetup: ['src/testing/global-setup.ts'],
  },
});
