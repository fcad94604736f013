import type { HeadedLine } from './headings.js';
import type { Line } from './layout.js';

// Code in a PDF: lines set in a monospaced font that stand as a block of their own (a listing, a shell
// session, a program's output) become a fenced code block that keeps their indentation, which the page
// gives only as x positions. Monospaced words inside a paragraph stay text. A document set almost wholly
// in a monospaced font (a plain-text file printed, an RFC) has no code blocks: that font is its body. A
// manual may have more code than prose, so "mostly" is not enough.

/** The share of a document's characters set in monospaced fonts above which that font is the body's. */
const MONO_BODY = 0.85;

/** Whether a monospaced font is the body font. */
export function monoIsBody(pages: readonly Line[][]): boolean {
  let mono = 0;
  let all = 0;
  for (const page of pages)
    for (const line of page) {
      all += line.text.length;
      if (line.mono) mono += line.text.length;
    }
  return mono > all * MONO_BODY;
}

/** Forgets that lines are monospaced, where that font is the body's. */
export function plainMono(pages: Line[][]): void {
  if (!monoIsBody(pages)) return;
  for (const page of pages) for (const line of page) delete line.mono;
}

const plain = (line: HeadedLine | undefined) => line !== undefined && !line.heading && !line.table;

/**
 * How many lines from `i` on make a code block: monospaced lines that start a block (a paragraph, or
 * after a heading or table) and end one. 0 where line `i` does not start such a run.
 */
export function codeRun(lines: readonly HeadedLine[], i: number): number {
  const first = lines[i];
  const before = lines[i - 1];
  if (!plain(first) || !first!.mono) return 0;
  if (before && !first!.paragraph && plain(before)) return 0;
  let j = i + 1;
  while (plain(lines[j]) && lines[j]!.mono) j++;
  const after = lines[j];
  return !after || after.paragraph || !plain(after) ? j - i : 0;
}

/** A run of monospaced lines as a fenced block: indents from their x, a blank line where a gap was. */
export function codeBlock(run: readonly HeadedLine[]): string {
  const left = Math.min(...run.map((l) => l.x));
  const body = run.map((line, k) => {
    const indent = ' '.repeat(Math.max(0, Math.round((line.x - left) / line.mono!)));
    return `${k > 0 && line.paragraph ? '\n' : ''}${indent}${line.text}`;
  });
  const text = body.join('\n');
  const fence = text.includes('```') ? '~~~~' : '```';
  return `${fence}\n${text}\n${fence}`;
}
