// Text from documents written as Markdown must not turn into Markdown structure by accident.

/**
 * A line of extracted text written so Markdown does not read it as structure: a leading `#` (a shell
 * comment, a numbered output line) or a line of `=` or `-` would otherwise become a heading.
 */
export function escapeMarkdownLine(line: string): string {
  return /^\s{0,3}(?:#{1,6}(?:\s|$)|=+\s*$|-{2,}\s*$)/.test(line) ? `\\${line.trimStart()}` : line;
}
