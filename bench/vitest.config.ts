// The bench's own unit tests (pure helpers only; nothing timed). The project's vitest.config.ts
// collects src/ and test/; run these with `npx vitest run --config bench/vitest.config.ts`.
import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: resolve(import.meta.dirname, '..'),
    include: ['bench/**/*.test.ts'],
    environment: 'node',
  },
});
