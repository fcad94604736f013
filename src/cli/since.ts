import { UsageError } from '../errors.js';

const UNIT_MS = { h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 } as const;

/** `7d`, `12h`, `2w` (relative to now) or `2026-11-01` (local midnight) → epoch milliseconds. */
export function parseSince(text: string, now: number = Date.now()): number {
  const relative = /^(\d+)([hdw])$/.exec(text.trim());
  if (relative) return now - Number(relative[1]) * UNIT_MS[relative[2] as keyof typeof UNIT_MS];
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text.trim());
  if (date) {
    const [y, m, d] = [Number(date[1]), Number(date[2]), Number(date[3])];
    const at = new Date(y, m - 1, d);
    if (at.getFullYear() === y && at.getMonth() === m - 1 && at.getDate() === d) return at.getTime();
  }
  throw new UsageError(
    `Invalid --since "${text}": use a duration like 7d, 12h or 2w, or a date like 2026-11-01.`,
  );
}
