import { main } from './run.js';

// The entry point. run.ts and everything it imports statically form the front end, bundled as one file
// (scripts/bundle.mjs); commands are imported when they run.

// `agent … | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

process.exitCode = await main();
