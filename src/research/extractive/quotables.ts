import { sourceSentences } from '../text.js';

// A document as the things an extractive answer may quote: each sentence, list item or table row, kept
// with what completes it. A sentence that ends with a colon takes the list (or line) after it; a
// "Default:" or "Note:" line right after a sentence goes with it; a table row is quoted with its header
// row. Nothing is cut inside a table row or a code span, and questions (FAQ headings) are context only.

export interface Quotable {
  /** What the answer quotes: the sentence (or row) with what completes it, Markdown emphasis removed. */
  text: string;
  /** The sentence alone: what the question is matched against first. */
  core: string;
  /** The heading above it: what it is about. */
  heading: string;
  /** The sentence before it in its paragraph ("that method" in it may mean a method named there). */
  previous: string;
  /** [start, end) of its first line in the document body, to match it to the passages a search found. */
  start: number;
  end: number;
  /** Segments covered, [first, last]: two quotes that share one are the same text. */
  span: [number, number];
}

interface Segment {
  kind: 'sentence' | 'item' | 'row';
  text: string;
  start: number;
  end: number;
  /** Paragraph, list or table it belongs to. */
  block: number;
  heading: string;
  /** An ordered list item's number. */
  number?: string;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const HEADING = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/;
const ITEM = /^\s*(?:[-*+]|(\d+)[.)])\s+(.*)$/;
const RULE = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;
/** A line that completes the sentence before it. */
export const LABEL =
  /^(?:default|defaults|note|notes|important|warning|caution|exception|tip|units?|range|example)\s*:/i;
/** A line that is all bold (a FAQ's question) stands as a heading. */
const BOLD_LINE = /^\s*(\*\*|__)(.+)\1\s*$/;

/** Emphasis and links go; code spans stay, backticks and all. */
export const plainText = (s: string): string =>
  s
    .replace(/\*\*|__/g, '')
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();

const cells = (line: string): string[] =>
  line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((c) => plainText(c).replace(/\.$/, ''));

/** The body's lines as segments in reading order. */
function segments(body: string): Segment[] {
  const out: Segment[] = [];
  let heading = '';
  let block = 0;
  let fence: string | undefined;
  let paragraph: { text: string; start: number; end: number }[] = [];
  let header: string[] | undefined;
  let tableRows = 0;
  let offset = 0;
  /** A list or table goes on until a blank line, a heading or another kind of line. */
  let lastKind: Segment['kind'] | undefined;
  const blockFor = (kind: Segment['kind']) => {
    if (lastKind !== kind) block++;
    lastKind = kind;
    return block;
  };

  const flush = () => {
    if (!paragraph.length) return;
    // A label line starts its own sentence even without a full stop before it.
    const groups: (typeof paragraph)[] = [];
    for (const line of paragraph)
      if (!groups.length || LABEL.test(line.text)) groups.push([line]);
      else groups.at(-1)!.push(line);
    for (const group of groups)
      for (const text of sourceSentences(plainText(group.map((l) => l.text).join(' '))))
        out.push({ kind: 'sentence', text, start: group[0]!.start, end: group.at(-1)!.end, block, heading });
    paragraph = [];
    block++;
    lastKind = 'sentence';
  };

  for (const line of body.split('\n')) {
    const start = offset;
    offset += line.length + 1;
    const end = start + line.length;
    const f = FENCE.exec(line)?.[1];
    if (fence || f) {
      flush();
      if (fence && f && f[0] === fence[0]) fence = undefined;
      else if (!fence) fence = f;
      continue;
    }
    const trimmed = line.trim();
    const h = HEADING.exec(line) ?? BOLD_LINE.exec(line);
    if (!trimmed || h || /^\[Page \d+\]$/.test(trimmed)) {
      flush();
      if (h) heading = plainText(h[2] ?? h[1]!);
      header = undefined;
      tableRows = 0;
      lastKind = undefined;
      continue;
    }
    if (trimmed.startsWith('|')) {
      flush();
      if (RULE.test(trimmed)) continue;
      const row = cells(trimmed);
      // The first row of a table is its header when a rule line follows it; it is kept, not quoted.
      if (tableRows++ === 0 && RULE.test(body.slice(offset, body.indexOf('\n', offset) + 1 || undefined))) {
        header = row;
        continue;
      }
      const paired =
        header?.length === row.length ? row.map((c, i) => `${header![i]}: ${c}`).join('; ') : row.join(' — ');
      out.push({ kind: 'row', text: `${paired}.`, start, end, block: blockFor('row'), heading });
      continue;
    }
    const item = ITEM.exec(line);
    if (item) {
      flush();
      const b = blockFor('item');
      out.push({ kind: 'item', text: plainText(item[2]!), number: item[1], start, end, block: b, heading });
      continue;
    }
    if (out.at(-1)?.kind === 'item' && !paragraph.length && /^\s{2,}/.test(line)) {
      // A list item's continuation line.
      const last = out.at(-1)!;
      last.text = plainText(`${last.text} ${trimmed}`);
      last.end = end;
      continue;
    }
    paragraph.push({ text: trimmed, start, end });
  }
  flush();
  return out;
}

const MAX_LIST = 8;
const MAX_QUOTE = 900;

/** Every quotable of a document, with what completes it. */
export function quotables(body: string): Quotable[] {
  const segs = segments(body);
  const found: Quotable[] = [];
  /** A "Default:" / "Note:" line that completes the segment before it (under the same heading). */
  const completes = (j: number) => {
    const s = segs[j];
    return s?.kind === 'sentence' && LABEL.test(s.text) && s.heading === segs[j - 1]?.heading;
  };
  segs.forEach((seg, i) => {
    // A question is what a FAQ asks, not an answer; a label line is quoted with what it completes.
    if (seg.kind !== 'row' && (/\?$/.test(seg.text) || (i > 0 && completes(i)))) return;
    let last = i;
    const parts = [seg.kind === 'item' && seg.number ? `${seg.number}. ${seg.text}` : seg.text];
    const take = (j: number) => {
      const s = segs[j]!;
      parts.push(s.kind === 'item' && s.number ? `${s.number}. ${s.text}` : s.text);
      last = j;
    };
    if (seg.text.endsWith(':')) {
      const next = segs[i + 1];
      if (next?.kind === 'item') {
        // The whole list after it (up to a bound), as one quote.
        for (
          let j = i + 1;
          j < segs.length && j <= i + MAX_LIST && segs[j]!.kind === 'item' && segs[j]!.block === next.block;
          j++
        )
          take(j);
      } else if (next && next.heading === seg.heading) take(i + 1);
    }
    // "Default: …" / "Note: …" lines right after it.
    while (completes(last + 1)) take(last + 1);
    let text = parts.join(' ');
    if (text.length > MAX_QUOTE) text = parts.slice(0, 1).join(' ');
    const previous = segs[i - 1]?.block === seg.block && seg.kind === 'sentence' ? segs[i - 1]!.text : '';
    found.push({
      text,
      core: seg.text,
      heading: seg.heading,
      previous,
      start: seg.start,
      end: seg.end,
      span: [i, last],
    });
  });
  return found;
}
