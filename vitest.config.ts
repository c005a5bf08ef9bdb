import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'bench/**/*.test.ts', 'packages/**/*.test.ts'],
    // Real client programs (Claude Code) run in `npm run test:clients` (vitest.clients.config.ts).
    exclude: [...configDefaults.exclude, 'test/clients/**', '.clients/**'],
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
