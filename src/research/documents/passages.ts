// A document body as passages: heading sections first (Markdown headings; a PDF's `[Page n]` markers
// also start one), each section then cut to a bounded size at the best boundary available: a blank line,
// then the end of a table row or list item, then a sentence, then a space. Each passage knows its heading
// path, so "Limits" arrives as "Refunds > Limits by role".

export interface Passage {
  ordinal: number;
  /** `Travel Policy > Hotels > London`; '' before the first heading. */
  headingPath: string;
  /** [start, end) in the body; `text` is exactly `body.slice(start, end)`. */
  start: number;
  end: number;
  text: string;
}

/** The size passages are cut to, in characters. A table row longer than this is still kept whole. */
export const PASSAGE_CHARS = 1500;

export const PATH_SEPARATOR = ' > ';

interface Line {
  start: number;
  end: number;
  text: string;
}

function linesOf(body: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  while (start <= body.length) {
    let end = body.indexOf('\n', start);
    if (end < 0) end = body.length;
    lines.push({ start, end, text: body.slice(start, end) });
    start = end + 1;
  }
  return lines;
}

const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const SETEXT = /^ {0,3}(=+|-{2,})[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const PAGE = /^\[Page (\d+)\]\s*$/;
const BLOCK_START = /^\s*(?:[-*+]\s|\d+[.)]\s|\||>|#)/;

type Mark =
  | { kind: 'heading'; level: number; title: string; from: number; to: number }
  | { kind: 'page'; page: number; from: number; to: number };

/** Headings and page markers, with the span of the lines that make them; code fences are skipped. */
function marks(lines: Line[]): Mark[] {
  const out: Mark[] = [];
  let fence: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const { text } = lines[i]!;
    const f = FENCE.exec(text)?.[1];
    if (fence) {
      if (f && f[0] === fence[0] && f.length >= fence.length && !text.trim().slice(f.length))
        fence = undefined;
      continue;
    }
    if (f) {
      fence = f;
      continue;
    }
    const atx = ATX.exec(text);
    if (atx) {
      const title = cleanHeading(atx[2] ?? '');
      if (title) out.push({ kind: 'heading', level: atx[1]!.length, title, from: i, to: i });
      continue;
    }
    const page = PAGE.exec(text);
    if (page) {
      out.push({ kind: 'page', page: Number(page[1]), from: i, to: i });
      continue;
    }
    // "Title\n=====": only under a single line of plain text, so a rule under a list or table stays a rule.
    const setext = SETEXT.exec(text);
    const above = lines[i - 1]?.text ?? '';
    const before = lines[i - 2]?.text ?? '';
    const last = out.at(-1);
    if (
      setext &&
      above.trim() &&
      !BLOCK_START.test(above) &&
      (!before.trim() || last?.to === i - 2) &&
      last?.to !== i - 1
    ) {
      out.push({
        kind: 'heading',
        level: setext[1]![0] === '=' ? 1 : 2,
        title: cleanHeading(above),
        from: i - 1,
        to: i,
      });
    }
  }
  return out;
}

function cleanHeading(text: string): string {
  return text
    .replace(/\*\*|__|`/g, '')
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 200);
}

/** The document's first heading, outside code blocks. */
export function firstHeading(body: string): string | undefined {
  for (const m of marks(linesOf(body))) if (m.kind === 'heading') return m.title;
  return undefined;
}

export function splitPassages(body: string, max = PASSAGE_CHARS): Passage[] {
  const lines = linesOf(body);
  const passages: Passage[] = [];
  const stack: { level: number; title: string }[] = [];
  let page: number | undefined;
  const path = () =>
    [...stack.map((h) => h.title), ...(page === undefined ? [] : [`Page ${page}`])].join(PATH_SEPARATOR);

  let sectionStart = 0;
  let sectionPath = '';
  const flush = (end: number) => {
    for (const [start, stop] of cut(body, sectionStart, end, max))
      passages.push({
        ordinal: passages.length,
        headingPath: sectionPath,
        start,
        end: stop,
        text: body.slice(start, stop),
      });
  };
  for (const m of marks(lines)) {
    flush(lines[m.from]!.start);
    if (m.kind === 'page') page = m.page;
    else {
      while (stack.length && stack.at(-1)!.level >= m.level) stack.pop();
      stack.push({ level: m.level, title: m.title });
    }
    sectionStart = lines[m.to]!.end;
    sectionPath = path();
  }
  flush(body.length);
  return passages;
}

// Boundary strengths: the cut goes at the strongest boundary in the window, the latest of them.
const PARAGRAPH = 4;
const ROW = 3; // before a table row, list item or quote, or after a line that ends a sentence
const SENTENCE = 2;
const WRAP = 1; // a line break inside a paragraph (wrapped text, PDF lines)
const SPACE = 0;

/** [start, end) pieces of body[from, to), trimmed, each at most `max` long unless a table row is longer. */
function cut(body: string, from: number, to: number, max: number): [number, number][] {
  const pieces: [number, number][] = [];
  let pos = skipSpace(body, from, to);
  to = trimEnd(body, pos, to);
  if (pos >= to) return pieces;
  const boundaries = to - pos > max ? boundariesOf(body, pos, to) : [];
  let b = 0;
  while (to - pos > max) {
    const low = pos + Math.floor(max / 3);
    const high = pos + max;
    while (b < boundaries.length && boundaries[b]![0] <= pos) b++;
    let best: [number, number] | undefined;
    for (let i = b; i < boundaries.length && boundaries[i]![0] <= high; i++) {
      const candidate = boundaries[i]!;
      if (candidate[0] < low) continue;
      if (!best || candidate[1] >= best[1]) best = candidate;
    }
    // No boundary in the window: a table row runs on to its end, anything else is cut hard.
    let at = best?.[0];
    if (at === undefined)
      at = insideTableRow(body, high)
        ? (boundaries.find((x) => x[0] > high)?.[0] ?? to)
        : hardCut(body, high);
    const end = trimEnd(body, pos, at);
    if (end > pos) pieces.push([pos, end]);
    pos = skipSpace(body, at, to);
  }
  if (to > pos) pieces.push([pos, to]);
  return pieces;
}

/** Positions where a passage may start, with their strength; never inside a table row. */
function boundariesOf(body: string, from: number, to: number): [number, number][] {
  const out: [number, number][] = [];
  const text = body.slice(from, to);
  let lineStart = 0;
  let previousLine = '';
  let blank = false;
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (lineStart > 0 && trimmed) {
      const strength = blank
        ? PARAGRAPH
        : BLOCK_START.test(line) || /[.!?:]["')\]]*$/.test(previousLine) || previousLine.startsWith('|')
          ? ROW
          : WRAP;
      out.push([from + lineStart, strength]);
    }
    if (!trimmed.startsWith('|')) {
      // Sentences and spaces inside the line; a table row is never cut.
      for (const m of line.matchAll(/[.!?]["')\]]*\s+(?=["'([]?[\p{Lu}\p{N}$])|\s+/gu)) {
        const at = (m.index ?? 0) + m[0].length;
        if (at < line.length) out.push([from + lineStart + at, /^[.!?]/.test(m[0]) ? SENTENCE : SPACE]);
      }
    }
    blank = !trimmed;
    if (trimmed) previousLine = trimmed;
    lineStart += line.length + 1;
  }
  return out; // already in order
}

function insideTableRow(body: string, at: number): boolean {
  const lineStart = body.lastIndexOf('\n', at - 1) + 1;
  return body
    .slice(lineStart, lineStart + 4)
    .trimStart()
    .startsWith('|');
}

/** A cut that does not split a UTF-16 surrogate pair. */
function hardCut(body: string, at: number): number {
  const code = body.charCodeAt(at - 1);
  return code >= 0xd800 && code <= 0xdbff ? at - 1 : at;
}

function skipSpace(body: string, at: number, to: number): number {
  while (at < to && /\s/.test(body[at]!)) at++;
  return at;
}

function trimEnd(body: string, from: number, at: number): number {
  while (at > from && /\s/.test(body[at - 1]!)) at--;
  return at;
}
