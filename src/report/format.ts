import { UsageError } from '../errors.js';

export type OutFormat = 'md' | 'html';

/**
 * The format of the `--out` file: `--format` when given, else HTML for a name ending in .html or .htm and
 * Markdown otherwise. Undefined when nothing is written.
 */
export function outFormat(out: string | undefined, format: string | undefined): OutFormat | undefined {
  if (out === undefined) {
    if (format !== undefined)
      throw new UsageError(
        `--format chooses what --out writes: add --out <file> (for example --out report.${format}).`,
      );
    return undefined;
  }
  if (format === 'md' || format === 'html') return format;
  return /\.html?$/i.test(out) ? 'html' : 'md';
}
