// Word 4-gram shingles, the measure the article-extraction benchmark scores with, shared by the benches
// that compare a text with a reference (bench/extract.mjs, bench/documents.mjs).

// Python's \w is Unicode-aware; JavaScript's is ASCII-only even with /u, so spell it out.
export const tokens = (text) => text.match(/[\p{L}\p{N}\p{M}_]+/gu) ?? [];

/** Counts of each run of four words (fewer for a shorter text). */
export function shingles(text) {
  const t = tokens(text);
  const counts = new Map();
  const n = Math.min(4, t.length);
  for (let i = 0; i + n <= t.length && n > 0; i++) {
    const key = t.slice(i, i + n).join(' ');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** True positives, false positives and false negatives of `predicted` against `expected`, in shingles. */
export function overlap(predicted, expected) {
  const p = shingles(predicted);
  const e = shingles(expected);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const [k, c] of p) {
    const m = Math.min(c, e.get(k) ?? 0);
    tp += m;
    fp += c - m;
  }
  for (const [k, c] of e) fn += c - Math.min(c, p.get(k) ?? 0);
  return { tp, fp, fn };
}

/** Shingle F1 of `predicted` against `expected` (1 when both are empty). */
export function f1(predicted, expected) {
  const { tp, fp, fn } = overlap(predicted, expected);
  if (tp + fp === 0 || tp + fn === 0) return tp + fp === tp + fn ? 1 : 0;
  const precision = tp / (tp + fp);
  const recall = tp / (tp + fn);
  return precision + recall ? (2 * precision * recall) / (precision + recall) : 0;
}
