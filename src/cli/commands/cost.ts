import { UsageError } from '../../errors.js';
import type { CostReport, CostRow, GroupBy } from '../../store/store.js';
import { costChart } from '../cost-chart.js';
import { openDb } from '../open-db.js';
import { parseSince } from '../since.js';
import { formatCost, formatInt, styleFor, table } from '../style.js';

export interface CostOptions {
  by: GroupBy;
  since?: string;
  json?: boolean;
  db?: string;
}

const HEADER_KEY: Record<GroupBy, string> = {
  model: 'MODEL',
  day: 'DAY',
  command: 'COMMAND',
  user: 'USER',
  batch: 'BATCH',
};

export async function runCost(options: CostOptions): Promise<void> {
  const since = options.since === undefined ? undefined : parseSince(options.since);
  const store = await openDb(options.db);
  if (options.by === 'batch' && store.kind !== 'postgres') {
    await store.close();
    throw new UsageError(
      '--by batch groups the calls of queued batches, which only a team database holds (AGENT_DATABASE_URL): this one is an SQLite file.',
    );
  }
  let report: CostReport;
  try {
    report = await store.ledger.report({ by: options.by, since });
  } finally {
    await store.close();
  }
  if (options.json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return;
  }
  if (report.totals.calls === 0) {
    process.stdout.write(
      options.since
        ? `No model calls recorded since ${options.since}.\n`
        : 'No model calls recorded yet. `agent chat` and `agent research` record every call here.\n',
    );
    return;
  }
  const cells = (r: Omit<CostRow, 'key'>) => [
    formatInt(r.calls),
    formatInt(r.inputTokens),
    formatInt(r.cacheReadTokens),
    formatInt(r.cacheWriteTokens),
    formatInt(r.outputTokens),
    formatInt(r.reasoningTokens),
    formatCost(r),
  ];
  const out = table(
    [HEADER_KEY[options.by], 'CALLS', 'INPUT', 'CACHE READ', 'CACHE WRITE', 'OUTPUT', '(REASONING)', 'COST'],
    report.rows.map((r) => [r.key, ...cells(r)]),
    ['TOTAL', ...cells(report.totals)],
  );
  process.stdout.write(`${out}\n`);
  // The chart is for people: on a pipe the output stays the table alone.
  if (process.stdout.isTTY && options.by !== 'command' && options.by !== 'batch')
    process.stdout.write(
      `\n${costChart(report.rows, options.by, process.stdout.columns || 80, styleFor(process.stdout))}\n`,
    );
  if (report.totals.cancelledCalls > 0) {
    process.stdout.write(
      `\n${report.totals.cancelledCalls} call(s) were cancelled (Ctrl-C) before their answer ended: billed all the same, they are counted with the tokens known at the cancel (partly estimated, about 4 characters a token).\n`,
    );
  }
  if (report.totals.unpricedCalls > 0) {
    process.stdout.write(
      `\n${report.totals.unpricedCalls} call(s) used a model with no known price; add it to your price file (see README, AGENT_PRICES).\n`,
    );
  }
}
