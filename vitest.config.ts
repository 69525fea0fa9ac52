import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Fails the run when a test leaves anything in the temp dir (see the file).
    globalSetup: ['test/support/temp-guard.ts'],
  },
});
