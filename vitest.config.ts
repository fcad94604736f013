import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // CLI tests run the built program, so build once before any test runs.
    globalSetup: ['test/support/build.ts'],
    testTimeout: 20_000,
  },
});
