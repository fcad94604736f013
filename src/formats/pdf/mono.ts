// A row of monospaced pieces as the text a terminal would show: spaces where the columns say.

interface MonoPiece {
  str: string;
  x: number;
  endX: number;
  mono?: boolean;
}

/** Pieces that are all monospaced: their text laid out by character columns, and the column width. */
export function monoText(pieces: readonly MonoPiece[]): { text: string; width: number } | undefined {
  if (!pieces.every((p) => p.mono)) return undefined;
  const widths = pieces
    .filter((p) => p.str.length >= 2)
    .map((p) => (p.endX - p.x) / p.str.length)
    .sort((a, b) => a - b);
  const width = widths[widths.length >> 1] ?? (pieces[0]!.endX - pieces[0]!.x) / pieces[0]!.str.length;
  if (!(width > 0)) return undefined;
  const x0 = pieces[0]!.x;
  let text = '';
  for (const p of pieces) {
    const column = Math.round((p.x - x0) / width);
    text += ' '.repeat(Math.max(0, column - text.length)) + p.str;
  }
  return { text: text.trimEnd(), width };
}
