import type { CostRow } from '../store/store.js';
import { formatCost, type Style } from './style.js';

// `agent cost --by day|model|user` on a terminal: a bar per row, its length in proportion to the dollars.

/** Eighths of a cell, so that bars differ by less than a whole character. */
const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
const FULL = '█';

/** A bar of `fraction` (0 to 1) of `width` cells; anything spent shows at least a sliver. */
export function bar(fraction: number, width: number): string {
  const eighths = Math.round(fraction * width * 8);
  const shown = fraction > 0 ? Math.max(1, eighths) : 0;
  return FULL.repeat(Math.floor(shown / 8)) + EIGHTHS[shown % 8];
}

/** The days from the first row's to the last's, those with no calls as empty rows (a year at most). */
function everyDay(rows: CostRow[]): CostRow[] {
  if (rows.length < 2) return rows;
  const byDay = new Map(rows.map((r) => [r.key, r]));
  const first = Date.parse(`${rows[0]!.key}T00:00:00Z`);
  const last = Date.parse(`${rows.at(-1)!.key}T00:00:00Z`);
  const days = Math.round((last - first) / 86_400_000);
  if (!Number.isFinite(days) || days > 366) return rows;
  const empty = { calls: 0, costUsd: 0, unpricedCalls: 0 };
  return Array.from({ length: days + 1 }, (_, i) => {
    const key = new Date(first + i * 86_400_000).toISOString().slice(0, 10);
    return byDay.get(key) ?? ({ key, ...empty } as CostRow);
  });
}

/**
 * The chart: one line per row, label, bar and dollar figure; `columns` is the terminal's width. Days run
 * in order with the empty ones shown; models and people come as the report orders them (dearest first).
 */
export function costChart(
  rows: CostRow[],
  by: 'day' | 'model' | 'user',
  columns: number,
  s: Pick<Style, 'cyan' | 'dim'>,
): string {
  const lines = by === 'day' ? everyDay(rows) : rows;
  const max = Math.max(0, ...lines.map((r) => r.costUsd ?? 0));
  const labelWidth = Math.max(...lines.map((r) => r.key.length));
  const figures = lines.map((r) => (r.calls === 0 ? '—' : formatCost(r)));
  const figureWidth = Math.max(...figures.map((f) => f.length));
  const width = Math.max(10, Math.min(60, columns - labelWidth - figureWidth - 4));
  return lines
    .map((r, i) => {
      const b = bar(max > 0 ? (r.costUsd ?? 0) / max : 0, width);
      return `${r.key.padEnd(labelWidth)}  ${s.cyan(b)}${' '.repeat(width - b.length)}  ${s.dim(figures[i]!.padStart(figureWidth))}`;
    })
    .join('\n');
}
