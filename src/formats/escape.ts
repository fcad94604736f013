// Text from documents written as Markdown must not turn into Markdown structure by accident.

/**
 * A line of extracted text written so Markdown does not read it as structure: a leading `#` (a shell
 * comment, a numbered output line) or a line of `=` or `-` would otherwise become a heading.
 */
export function escapeMarkdownLine(line: string): string {
  return /^\s{0,3}(?:#{1,6}(?:\s|$)|=+\s*$|-{2,}\s*$)/.test(line) ? `\\${line.trimStart()}` : line;
}

/** Link targets (`](url)`), autolinks (`<https://…>`) and footnote marks (`[^1]`) in converted text. */
const MARKUP = /\]\((?:[^()\s]|\([^()\s]*\))*\)|<(?:https?|mailto):[^>\s]*>|\[\^[^\]\s]+\]/g;

/**
 * Converted text as its words and figures only, for checks that compare them: a link's address is not
 * the source's text (its digits are not the source's figures), nor is a footnote's mark.
 */
export function withoutLinkMarkup(text: string): string {
  if (!text.includes('](') && !text.includes('<http') && !text.includes('<mailto') && !text.includes('[^'))
    return text;
  return text.replace(MARKUP, (m) => (m.startsWith(']') ? ']' : ' '));
}
