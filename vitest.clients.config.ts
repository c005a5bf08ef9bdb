// `npm run test:clients` (scripts/test-clients.sh): the tests that drive real client programs
// installed outside node_modules (Claude Code's native binary, about 190 MB), kept out of `npm test`.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/clients/**/*.test.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 1,
    env: { NODE_ENV: 'test' },
    globalSetup: ['src/testing/global-setup.ts'],
  },
});
