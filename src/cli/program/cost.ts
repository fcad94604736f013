import { type Command, Option } from 'commander';

export function addCostCommand(program: Command): void {
  program
    .command('cost')
    .description('Show what model calls have cost, from the usage ledger.')
    .addOption(
      new Option(
        '--by <group>',
        'group rows by (user: who made the calls, AGENT_USER; batch: queued batches)',
      )
        .choices(['model', 'day', 'command', 'user', 'batch'])
        .default('model'),
    )
    .option('--since <when>', 'only calls since a duration ago (7d, 12h, 2w) or a date (2026-11-01)')
    .option('--json', 'print JSON for scripts')
    .addHelpText(
      'after',
      `
Examples:
  agent cost                      spend per model, all time
  agent cost --by day --since 7d  the last week, day by day
  agent cost --by command --json  machine-readable totals
  agent cost --by user --since 30d  the team's spend per person (calls kept before people: unknown)
  agent cost --by batch           each queued batch's cost (team database; none: calls outside batches)`,
    )
    .action(async (options, command: Command) => {
      const { runCost } = await import('../commands/cost.js');
      await runCost({ ...options, db: command.optsWithGlobals().db });
    });
}
