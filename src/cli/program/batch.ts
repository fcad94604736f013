import type { Command } from 'commander';

const ACTIONS = {
  status: 'counts of queued, running, done and failed questions, each failure with its reason',
  results: 'the answered and failed lines as JSON Lines, as --batch prints them',
  cancel: 'cancel the batch: queued questions are dropped, running ones stop at their next step',
  retry: 'queue the failed questions again',
} as const;

export function addBatchCommand(program: Command): void {
  const batch = program
    .command('batch')
    .description(
      'See and manage the batches queued with agent research --batch FILE --queue (team database).',
    );
  batch
    .command('list')
    .description('The newest batches, with how far each is and what it cost.')
    .option('--json', 'print JSON for scripts')
    .action(async (options, command: Command) => {
      const { runBatch } = await import('../commands/batch.js');
      await runBatch('list', undefined, { ...options, db: command.optsWithGlobals().db });
    });
  for (const [action, description] of Object.entries(ACTIONS))
    batch
      .command(action)
      .argument('<id>', 'the batch id that --queue printed (agent batch list shows them)')
      .description(description[0]!.toUpperCase() + description.slice(1))
      .option('--json', 'print JSON for scripts')
      .action(async (id: string, options, command: Command) => {
        const { runBatch } = await import('../commands/batch.js');
        await runBatch(action as keyof typeof ACTIONS, id, { ...options, db: command.optsWithGlobals().db });
      });
  batch.addHelpText(
    'after',
    `
Examples:
  agent batch list
  agent batch status 3f9c2a1b
  agent batch results 3f9c2a1b > answers.jsonl
  watch -n 5 agent batch status 3f9c2a1b`,
  );
}
