import type { Command } from 'commander';
import { maxCostOption, positiveInt } from './options.js';

export function addWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description(
      "Answer the questions of queued batches (agent research --batch FILE --queue) from the team database's job queue.",
    )
    .option('--concurrency <n>', 'questions answered at once by this worker (default 2)', positiveInt)
    .option('--until-empty', 'exit (status 0) once the queue has nothing left to answer')
    .addOption(maxCostOption('stop taking jobs once this worker has spent this many US dollars'))
    .addHelpText(
      'after',
      `
Needs a team PostgreSQL database (AGENT_DATABASE_URL): start workers on as many machines as you like with
the same URL. Each question is a research run with this machine's API keys, content folder and caches,
recorded as it goes. Ctrl-C or SIGTERM: no new job is taken and running ones are handed back (the next
worker continues each from its recorded progress, paying nothing twice); a second signal exits at once.

Environment: AGENT_QUEUE_LEASE (seconds, default 60) is how long a job stays with a worker that stops
renewing it (killed, cut off) before another takes it over; AGENT_PROVIDER_CONCURRENCY (4, or
openai=4,anthropic=2) caps the model calls in flight per provider across every worker.

Examples:
  agent worker --concurrency 4
  agent worker --until-empty --max-cost 20`,
    )
    .action(async (options, command: Command) => {
      const { runWorkerCommand } = await import('../commands/worker.js');
      await runWorkerCommand({ ...options, db: command.optsWithGlobals().db });
    });
}
