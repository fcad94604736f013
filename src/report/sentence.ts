// A sentence of an answer as a reader sees it, for the places that show it as text (the HTML report's
// list of flagged sentences, the terminal's warnings): no Markdown parser, so it costs nothing to load.

/** Whitespace collapsed, Markdown emphasis and list or heading markers dropped: how sentences are compared. */
export const normalize = (s: string) =>
  s
    .replace(/^\s*(?:[-*+]|\d+[.)]|#{1,6}|>)\s+/, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\*\*|__|[*`]|~~/g, '')
    .replace(/\s+/g, ' ')
    .trim();

/** A flagged sentence as a reader sees it: a table row's cells joined, Markdown emphasis and links gone. */
export function sentenceText(sentence: string): string {
  const s = sentence.trim();
  if (!s.startsWith('|')) return normalize(s);
  const cells = s
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((c) => normalize(c))
    .filter(Boolean);
  // A cell that is only citations goes at the end, as in a sentence.
  const cites = cells.filter((c) => /^(?:\[\d+(?:\s*,\s*\d+)*\]\s*)+$/.test(c));
  const text = cells.filter((c) => !cites.includes(c)).join(' — ');
  return cites.length ? `${text} ${cites.join(' ')}` : text;
}
