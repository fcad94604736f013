import { formatUsd, styleFor } from './style.js';

// The progress of `agent research --batch` on stderr: one line redrawn in place on a terminal (a bar, N
// of M done, failures, dollars spent, time taken); on a pipe, only the summary line at the end.

const BAR = 20;
const REDRAW_MS = 250;

export interface BatchCounts {
  total: number;
  answered: number;
  skipped: number;
  failed: number;
  /** Dollars of the model calls made so far; `unpriced` counts calls with no known price. */
  spentUsd: number;
  unpriced: number;
}

const clock = (ms: number) => {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
};

/** Dollars spent; calls to a model with no known price make it "unknown", or "+ unknown" beside priced ones. */
const money = (c: BatchCounts) => {
  if (!c.unpriced) return formatUsd(c.spentUsd);
  return c.spentUsd ? `${formatUsd(c.spentUsd)} + unknown` : 'unknown';
};

/** The line under the bar's redraws: `██████░░░░ 3 of 5 done · 1 failed · $0.02 · 0:42`. */
export function progressLine(c: BatchCounts, elapsedMs: number): string {
  const done = c.answered + c.skipped + c.failed;
  const filled = c.total ? Math.round((done / c.total) * BAR) : BAR;
  const bar = '█'.repeat(filled) + '░'.repeat(BAR - filled);
  const failed = c.failed ? ` · ${c.failed} failed` : '';
  return `${bar} ${done} of ${c.total} done${failed} · ${money(c)} · ${clock(elapsedMs)}`;
}

/** The one line every batch ends with, terminal or not. */
export function summaryLine(c: BatchCounts, elapsedMs: number, limitUsd?: number): string {
  const parts = [`${c.answered} answered`];
  if (c.skipped) parts.push(`${c.skipped} skipped (answered before)`);
  if (c.failed) parts.push(`${c.failed} failed`);
  const cap = limitUsd === undefined ? '' : ` of the ${formatUsd(limitUsd)} cap`;
  const seconds = (elapsedMs / 1000).toFixed(1);
  return `Batch of ${c.total} question${c.total === 1 ? '' : 's'}: ${parts.join(', ')} · ${money(c)}${cap} spent · ${seconds} s`;
}

export class BatchProgress {
  readonly counts: BatchCounts;
  private readonly started = performance.now();
  private readonly timer?: NodeJS.Timeout;
  private readonly live: boolean;
  private shown = false;

  constructor(
    total: number,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {
    this.counts = { total, answered: 0, skipped: 0, failed: 0, spentUsd: 0, unpriced: 0 };
    this.live = Boolean(stream.isTTY);
    if (this.live) {
      this.timer = setInterval(() => this.draw(), REDRAW_MS);
      this.timer.unref();
      this.draw();
    }
  }

  get elapsedMs(): number {
    return performance.now() - this.started;
  }

  spend(costUsd: number | null): void {
    if (costUsd === null) this.counts.unpriced++;
    else this.counts.spentUsd += costUsd;
    this.draw();
  }

  done(status: 'answered' | 'skipped' | 'failed'): void {
    this.counts[status]++;
    this.draw();
  }

  /** Writes a line above the bar (stdout and stderr may be the same terminal). */
  above(write: () => void): void {
    this.clear();
    write();
    this.draw();
  }

  /** Stops redrawing, and leaves the summary line. */
  finish(limitUsd?: number): void {
    if (this.timer) clearInterval(this.timer);
    this.clear();
    this.stream.write(`${styleFor(this.stream).dim(summaryLine(this.counts, this.elapsedMs, limitUsd))}\n`);
  }

  private draw(): void {
    if (!this.live) return;
    // A bare pty reports no width: the line is kept under the usual 80 columns there.
    const width = this.stream.columns > 0 ? this.stream.columns : 80;
    const text = progressLine(this.counts, this.elapsedMs).slice(0, width - 1);
    this.stream.write(`\r\x1b[2K${styleFor(this.stream).dim(text)}`);
    this.shown = true;
  }

  private clear(): void {
    if (this.shown) this.stream.write('\r\x1b[2K');
    this.shown = false;
  }
}
