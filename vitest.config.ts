import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // CLI tests run the built program, so build once before any test runs.
    globalSetup: ['test/support/build.ts'],
    // A net for a test or hook that hangs, never a limit a slow machine reaches: tests wait on child
    // processes, databases (PGlite in WebAssembly) and sockets, which a loaded 2-core machine makes
    // several times slower (one PostgreSQL store test took 36 s there, past the 20 s this was). No
    // test sets a lower one.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    teardownTimeout: 300_000,
    // Most tests wait on child processes, servers and sockets rather than compute: one worker more than
    // the cores keeps them busy (a 2-core CI run: 3.5 minutes instead of 5.4). The tests wait on events,
    // not time, so the load does not change their outcome.
    maxWorkers: Math.min(availableParallelism() + 1, 8),
  },
});
