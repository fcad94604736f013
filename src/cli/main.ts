import { main } from './run.js';

// The entry point, called by bin/agent.js. This file, run.ts and everything they import statically form
// the front end, bundled as one file (scripts/bundle.mjs); commands are imported when they run.

export async function start(): Promise<void> {
  // `agent … | head` closes the pipe early: that is the reader's choice, not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  process.exitCode = await main();
}
