import { visibleLength } from './palette.js';

// Word wrap for rendered terminal text. Lines break at spaces only: a word is never split, so a word (or a
// URL) longer than the line runs past the edge on a line of its own, where the terminal folds it and a
// copied URL stays whole. Escape sequences take no room, and a style open at a break is closed at the
// end of the line and opened again after the next line's indent (an underline must not run under it).

const SGR_AT = /\u001b\[[0-9;]*m/g;
const RESET = '\u001b[0m';

/** The style in effect at the end of `s`: its last escape, unless that one resets. */
function openStyle(s: string): string {
  const escapes = s.match(SGR_AT);
  const last = escapes?.at(-1);
  return last && last !== RESET ? last : '';
}

export interface Hanging {
  /** Written before the first line (a bullet, a quote bar, an indent). */
  first: string;
  /** Written before every further line: as wide as `first` for a list item, the bar again for a quote. */
  rest: string;
}

/**
 * `text` (one line, styled) wrapped to `width` columns, each line with its prefix, joined by newlines.
 * A width of 0 or less (unknown) leaves the text as one line.
 */
export function wrapLine(text: string, width: number, hang: Hanging = { first: '', rest: '' }): string {
  const room = (prefix: string) => width - visibleLength(prefix);
  if (!(width > 0) || visibleLength(hang.first) + visibleLength(text) <= width) return hang.first + text;
  // Words and the runs of spaces between them: ['', '  ', 'word', ' ', 'word', …] when text starts with spaces.
  const parts = text.split(/( +)/);
  const lines: string[] = [];
  let prefix = hang.first;
  let line = parts[0] ?? '';
  let used = visibleLength(line);
  for (let i = 1; i < parts.length; i += 2) {
    const gap = parts[i]!;
    const word = parts[i + 1] ?? '';
    const wide = visibleLength(word);
    // Spaces at the end of the text: kept if they fit, else dropped (never a line of their own).
    if (!word && used + gap.length > room(prefix)) continue;
    if (used === 0 || used + gap.length + wide <= room(prefix)) {
      line += gap + word;
      used += gap.length + wide;
      continue;
    }
    // Break here: the gap is dropped; the style open at the break is closed and carried over.
    const style = openStyle(line);
    lines.push(prefix + line + (style ? RESET : ''));
    prefix = hang.rest;
    line = style + word;
    used = wide;
  }
  lines.push(prefix + line);
  return lines.join('\n');
}

/**
 * The prefix for the lines that continue a list item: as wide as its marker, though never more than half
 * the line, so that a deep item on a narrow terminal keeps some room for its words.
 */
export function hangingIndent(first: string, width: number): string {
  const wide = visibleLength(first);
  return ' '.repeat(width > 0 ? Math.min(wide, Math.floor(width / 2)) : wide);
}
