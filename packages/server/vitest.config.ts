import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Files whose checks do not depend on the database: they use none, or only
 * to sign someone up before checking HTTP headers, the MCP protocol, the
 * Origin policy or the lint rules. They run once, on PGlite; the PostgreSQL
 * run (TEST_DATABASE_URL) leaves them out. docs/testing.md.
 */
const DATABASE_INDEPENDENT = [
  'src/architecture.test.ts',
  'src/lib/**',
  'src/http/banner.test.ts',
  'src/http/logging.test.ts',
  'src/http/security-headers.test.ts',
  'src/realtime/account-feed.test.ts',
  'src/realtime/socket-writer.test.ts',
  'src/features/duplicates/names.test.ts',
  'src/features/graph/account-gate.test.ts',
  'src/features/oauth/metadata-fetch.test.ts',
  'src/features/oauth/oauth-permissions.test.ts',
  'src/features/recall/time-words.test.ts',
  'src/mcp/conformance.test.ts',
  'src/mcp/apps/**',
  'src/security/origin.test.ts',
];

export default defineConfig({
  resolve: {
    // Tests run against shared's source, so `npm test` needs no build first.
    alias: {
      '@engram/shared': fileURLToPath(new URL('../shared/src/index.ts', import.meta.url)),
    },
  },
  test: {
    include: ['src/**/*.test.ts'],
    exclude: process.env.TEST_DATABASE_URL
      ? [...configDefaults.exclude, ...DATABASE_INDEPENDENT]
      : configDefaults.exclude,
    // One migrated database that every test database starts from.
    globalSetup: ['src/test/template-database.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each test file builds its own app on its own database; PGlite is CPU-bound,
    // so two files at a time suit these 2-core machines.
    maxWorkers: 2,
  },
});
