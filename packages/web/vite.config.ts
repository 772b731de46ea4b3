import { fileURLToPath } from 'node:url';
import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/** Paths the Node server answers; in development Vite forwards them to it. */
const SERVER_PATHS = ['/api', '/auth', '/mcp', '/ws', '/docs', '/healthz'];
const SERVER_ORIGIN = 'http://127.0.0.1:8787';

export default defineConfig({
  plugins: [react(), tailwindcss()],
  resolve: {
    alias: {
      '@': fileURLToPath(new URL('./src', import.meta.url)),
      // Source, not dist: the web app never needs the shared package built first.
      '@engram/shared': fileURLToPath(new URL('../shared/src/index.ts', import.meta.url)),
    },
  },
  server: {
    // Anchored patterns: a bare '/api' prefix would also swallow the SPA's /api-keys route.
    proxy: Object.fromEntries(
      SERVER_PATHS.map((path) => [
        `^${path}(/|\\?|$)`,
        { target: SERVER_ORIGIN, ws: path === '/ws' },
      ]),
    ),
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
  },
});
