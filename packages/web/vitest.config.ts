import { defineConfig, mergeConfig } from 'vitest/config';
import viteConfig from './vite.config.ts';

export default mergeConfig(
  viteConfig,
  defineConfig({
    test: {
      environment: 'jsdom',
      include: ['src/**/*.test.{ts,tsx}'],
      setupFiles: ['src/test/setup.ts'],
      // Room for several 5 s waits in one test on a busy machine.
      testTimeout: 30_000,
      restoreMocks: true,
      unstubGlobals: true,
    },
  }),
);
