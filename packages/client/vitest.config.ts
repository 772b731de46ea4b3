import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // The tests start the server in-process from its sources, which import shared's.
    alias: {
      '@engram/shared': fileURLToPath(new URL('../shared/src/index.ts', import.meta.url)),
    },
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file that needs a server starts one on its own embedded database (CPU-bound).
    maxWorkers: 2,
  },
});
