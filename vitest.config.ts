import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // CLI tests run the built program, so build once before any test runs.
    globalSetup: ['test/support/build.ts'],
    testTimeout: 20_000,
    // Most tests wait on child processes, servers and sockets rather than compute: one worker more than
    // the cores keeps them busy (a 2-core CI run: 3.5 minutes instead of 5.4). The tests wait on events,
    // not time, so the load does not change their outcome.
    maxWorkers: Math.min(availableParallelism() + 1, 8),
  },
});
