import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Tests run against shared's source, so `npm test` needs no build first.
    alias: {
      '@engram/shared': fileURLToPath(new URL('../shared/src/index.ts', import.meta.url)),
    },
  },
  test: {
    include: ['src/**/*.test.ts'],
    // One migrated database that every test database starts from.
    globalSetup: ['src/test/template-database.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each test file builds its own app on its own database; PGlite is CPU-bound,
    // so two files at a time suit these 2-core machines.
    maxWorkers: 2,
  },
});
