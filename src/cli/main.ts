import { main } from './run.js';

// The entry point, called by bin/agent.js. This file, run.ts and everything they import statically form
// the front end, bundled as one file (scripts/bundle.mjs); commands are imported when they run.

export async function start(): Promise<void> {
  onStdout((stdout) =>
    // `agent … | head` closes the pipe early: that is the reader's choice, not an error.
    stdout.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw error;
    }),
  );
  process.exitCode = await main();
}

/**
 * Calls `ready` with process.stdout when something first uses it. Node makes the stream on first use
 * (a TTY, pipe or file stream: a few milliseconds of its own modules); a research run first writes to
 * stdout long after its first model request, so that cost is not paid before it.
 */
function onStdout(ready: (stdout: NodeJS.WriteStream) => void): void {
  const made = Object.getOwnPropertyDescriptor(process, 'stdout');
  if (!made?.get || !made.configurable) {
    ready(process.stdout);
    return;
  }
  const make = made.get;
  Object.defineProperty(process, 'stdout', {
    configurable: true,
    enumerable: made.enumerable,
    get() {
      const stdout = make.call(process) as NodeJS.WriteStream;
      Object.defineProperty(process, 'stdout', {
        configurable: true,
        enumerable: made.enumerable,
        value: stdout,
      });
      ready(stdout);
      return stdout;
    },
  });
}
