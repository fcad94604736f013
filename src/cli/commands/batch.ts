import { formatUsd } from '../../money.js';
import {
  type BatchSummary,
  cancelBatch,
  getBatch,
  items,
  listBatches,
  retryBatch,
} from '../../queue/batches.js';
import { openQueue } from '../queue-open.js';
import { styleFor, table } from '../style.js';
import { lineJson } from './research-queue.js';

// `agent batch list | status ID | results ID | cancel ID | retry ID`: the queued batches of the team
// database, as their questions are answered by `agent worker` processes.

export interface BatchOptions {
  json?: boolean;
  db?: string;
}

type Action = 'list' | 'status' | 'results' | 'cancel' | 'retry';

const counts = (b: BatchSummary) => {
  const c = b.counts;
  const parts = [`${c.done} done`, `${c.queued} queued`, `${c.running} running`, `${c.failed} failed`];
  if (c.cancelled) parts.push(`${c.cancelled} cancelled`);
  return parts.join(' · ');
};

const spend = (b: BatchSummary) =>
  `${formatUsd(b.spentUsd)}${b.maxCostUsd === null ? '' : ` of ${formatUsd(b.maxCostUsd)}`}`;

/** One word for where the batch stands. */
export function batchState(b: BatchSummary): string {
  const c = b.counts;
  if (b.cancelled) return c.running ? 'cancelling' : 'cancelled';
  if (c.queued + c.running > 0) return b.capSpent ? 'cap spent' : c.running ? 'running' : 'queued';
  if (b.capSpent) return 'cap spent';
  return c.failed ? 'done with failures' : 'done';
}

export async function runBatch(action: Action, id: string | undefined, o: BatchOptions): Promise<void> {
  const queue = await openQueue(o.db, `agent batch ${action}`);
  const db = queue.store.db;
  const out = (text: string): void => {
    process.stdout.write(`${text}\n`);
  };
  try {
    if (action === 'list') {
      const all = await listBatches(db);
      if (o.json) return out(JSON.stringify(all, null, 2));
      if (!all.length) return out('No batches yet: `agent research --batch FILE --queue` queues one.');
      out(
        table(
          ['ID', 'QUEUED', 'BY', 'STATE', 'QUESTIONS', 'COST'],
          all.map((b) => [
            b.id,
            new Date(b.createdAt).toISOString().slice(0, 16).replace('T', ' '),
            b.user,
            batchState(b),
            `${b.counts.done}/${b.counts.total} done${b.counts.failed ? `, ${b.counts.failed} failed` : ''}`,
            spend(b),
          ]),
        ),
      );
      return;
    }
    const batchId = id!;
    if (action === 'status') {
      const b = await getBatch(db, batchId);
      const failures = (await items(db, batchId, ['failed'])).map((it) => ({
        line: it.line,
        error: it.error,
      }));
      if (o.json) return out(JSON.stringify({ ...b, state: batchState(b), failures }, null, 2));
      const style = styleFor(process.stdout);
      out(`Batch ${b.id} (${b.source}, queued by ${b.user || 'unknown'}): ${batchState(b)}`);
      out(`${counts(b)} · ${b.counts.total} in all · ${spend(b)} spent`);
      if (b.capSpent)
        out(style.yellow("The batch's cap (--max-cost) is spent: workers start none of its questions."));
      for (const f of failures) out(`  line ${f.line}: ${style.red(f.error ?? 'failed')}`);
      return;
    }
    if (action === 'results') {
      await getBatch(db, batchId);
      // JSON Lines, in line order, as `--batch` prints them (queued and running lines are left out).
      for (const it of await items(db, batchId, ['done', 'failed', 'cancelled']))
        out(JSON.stringify(lineJson(it)));
      return;
    }
    if (action === 'cancel') {
      const n = await cancelBatch(db, queue.boss, batchId);
      if (o.json) return out(JSON.stringify({ id: batchId, cancelled: n }));
      out(
        `Cancelled batch ${batchId}: ${n} queued question(s) will not be run; running ones stop at their next step.`,
      );
      return;
    }
    const n = await retryBatch(db, queue.boss, batchId);
    if (o.json) return out(JSON.stringify({ id: batchId, queued: n }));
    out(
      n
        ? `Queued ${n} failed question(s) of batch ${batchId} again.`
        : `Batch ${batchId} has no failed question to retry.`,
    );
  } finally {
    await queue.close();
  }
}
