// Small text helpers shared by the extractive answerer and the citation check.

/** A light English stemmer: enough to match refund/refunds/refunded and approve/approval/approved. */
export function stem(word: string): string {
  let w = word.toLowerCase().replace(/'s$/, '');
  if (w.length <= 3) return w;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (/(ss|us|is)$/.test(w)) {
    // class, status, analysis: not plurals
  } else if (/(x|z|ch|sh)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s')) w = w.slice(0, -1);
  if (w.endsWith('ing') && w.length > 5) w = w.slice(0, -3);
  else if (w.endsWith('ed') && w.length > 4) w = w.slice(0, -2);
  if (w.endsWith('al') && w.length > 6) w = w.slice(0, -2);
  if (w.endsWith('e') && w.length > 4) w = w.slice(0, -1);
  return w;
}

export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Markdown → plain sentences: headings, table rules and list markers removed, table rows as "a — b". */
export function markdownSentences(markdown: string): string[] {
  const paragraphs: string[] = [];
  let current: string[] = [];
  const end = () => {
    if (current.length) paragraphs.push(current.join(' '));
    current = [];
  };
  for (const raw of markdown.split('\n')) {
    const line = raw.trim();
    if (!line || /^#{1,6}\s/.test(line) || /^\|?\s*:?-{3,}/.test(line)) {
      end();
      continue;
    }
    if (line.startsWith('|')) {
      end();
      const cells = line
        .split('|')
        .map((c) => c.trim())
        .filter(Boolean);
      paragraphs.push(`${cells.join(' — ')}.`);
      continue;
    }
    const item = /^([-*+]|\d+[.)])\s+(.*)$/.exec(line);
    if (item) {
      end();
      current.push(item[2]!);
      continue;
    }
    current.push(line);
  }
  end();
  return paragraphs
    .map((p) => p.replace(/\*\*|__|`/g, '').replace(/\[([^\]]+)\]\([^)]*\)/g, '$1'))
    .flatMap((p) => p.split(/(?<=[.!?])\s+(?=["“(]?[A-Z0-9$])/))
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** Splits prose into sentences for checking, keeping `[n]` markers with the sentence they end. */
export function proseSentences(text: string): string[] {
  return text
    .split(/\n+/)
    .flatMap((line) => line.split(/(?<=[.!?](?:\s*\[\d+(?:\s*,\s*\d+)*\])*)\s+(?=["“(]?[A-Z0-9$])/))
    .map((s) => s.trim())
    .filter(Boolean);
}
