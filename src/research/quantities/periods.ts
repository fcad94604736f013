import { type Fact, keyed, readAll } from './fact.js';
import { UNIT_AFTER } from './units.js';

// Periods and versions, compared as written: fiscal years (`FY2026`, `FY26`, `fiscal 2026`), quarters
// (`Q3`, `3Q24`, `third quarter`), halves (`H1`, `first half of 2026`), `mid-2026`, and versions
// (`v2.4`, `2.3.1`, `Python 3.10`: 3.10 is not 3.1).

const YR = "'?(\\d{4}|\\d{2})(?!\\d)";
const FISCAL = new RegExp(`(?:FY\\s?${YR}(?:[/–-]\\d{2,4})?|[Ff]iscal\\s+(?:year\\s+)?(\\d{4}))(?!\\d)`, 'g');
const ORDINAL: Record<string, number> = {
  first: 1,
  '1st': 1,
  second: 2,
  '2nd': 2,
  third: 3,
  '3rd': 3,
  fourth: 4,
  '4th': 4,
};
const QUARTER = new RegExp(`(?:Q([1-4])|([1-4])Q(?=\\s?'?\\d{2}))(?:\\s?${YR})?(?![\\p{L}\\p{N}])`, 'gu');
const HALF = new RegExp(`(?:H([12])|([12])H(?=\\s?'?\\d{2}))(?:\\s?${YR})?(?![\\p{L}\\p{N}])`, 'gu');
const IN_WORDS =
  /(first|second|third|fourth|1st|2nd|3rd|4th)[\s-]+(quarter|half)\b(?:\s+of)?(?:\s+(\d{4}))?/iy;
const ORDINAL_BEFORE = /(?:first|second|third|fourth|1st|2nd|3rd|4th)[\s-]+$/i;
const MID = /(?:[Mm]id-?\s?|(?:the\s+)?middle\s+of\s+)(\d{4})(?!\d)/g;

const PRODUCT =
  '(?:version|release|ver\\.?|build|update|Python|Node(?:\\.js)?|Java|PHP|Ruby|Go|Rust|Perl|Swift|Kotlin|TypeScript|iOS|iPadOS|macOS|Android|Windows|Ubuntu|Debian|Fedora|Chrome|Firefox|Safari|Kubernetes|PostgreSQL|Postgres|MySQL|React|Angular|Vue|Django|Rails|Spring|Excel|Office|Bluetooth|Wi-Fi|USB|HTTP|TLS|SSL|OAuth|IPv|Unicode)';
const VERSION = new RegExp(
  `(?:[vV](\\d+(?:\\.\\d+)*)|(\\d+(?:\\.\\d+){2,}))(?![.,]?\\d)|\\b${PRODUCT}\\s?(\\d+\\.\\d+)(?![.,]?\\d)`,
  'gu',
);
const AFTER_NUMBER = new RegExp(
  `^(?:${UNIT_AFTER}|\\s?(?:[kKMB]|bn|mn|m|million|billion|thousand|trillion)\\b)`,
  'u',
);

const year = (y: string | undefined) =>
  y === undefined ? undefined : y.length === 2 ? 2000 + Number(y) : Number(y);

/** A period with a year gives both (`Q3 2024` holds `Q3`); an answer's needs the period and the year apart. */
function period(raw: string, prefix: string, n: number, y: number | undefined): Fact[] {
  const key = `${prefix}:${n}`;
  const facts = [keyed('period', raw, [key, ...(y ? [`n:${y}`] : [])], [key])];
  if (y) facts.push(keyed('period', raw, [], [`n:${y}`]));
  return facts;
}

/**
 * Reads quarters and halves named in words ("the third quarter of 2025"), from the whole text: the scan
 * looks for "quarter" and "half" alone, and the ordinal before each is read where it is found.
 */
export function readPeriodWords(text: string): { facts: Fact[]; text: string } {
  const facts: Fact[] = [];
  let out = '';
  let at = 0;
  for (const w of text.matchAll(/quarter|half/gi)) {
    const before = ORDINAL_BEFORE.exec(text.slice(Math.max(at, w.index - 12), w.index));
    if (!before) continue;
    IN_WORDS.lastIndex = w.index - before[0].length;
    const m = IN_WORDS.exec(text);
    if (!m || (m.index > 0 && /\w/.test(text[m.index - 1]!))) continue;
    const n = ORDINAL[m[1]!.toLowerCase()]!;
    const kind = m[2]!.toLowerCase() === 'half' ? 'h' : 'q';
    if (kind === 'h' && n > 2) continue;
    for (const f of period(m[0], kind, n, year(m[3]))) facts.push(f);
    out += text.slice(at, m.index) + ' '.repeat(m[0].length);
    at = m.index + m[0].length;
  }
  return { facts, text: at === 0 ? text : out + text.slice(at) };
}

/** Reads fiscal years, quarters, halves, mid-years and versions; returns the facts and the blanked text. */
export function readPeriods(input: string): { facts: Fact[]; text: string } {
  const facts: Fact[] = [];
  let text = input;
  // Each pass runs only when the text holds the letters its pattern cannot match without.
  const pass = (re: RegExp, read: (m: RegExpExecArray) => Fact[] | undefined, needs = true) => {
    if (!needs) return;
    const r = readAll(text, re, read, re === FISCAL || re === MID ? /[\p{L}]/u : /[\p{L}\p{N}.]/u);
    facts.push(...r.facts);
    text = r.text;
  };
  pass(
    FISCAL,
    (m) => {
      const y = year(m[1] ?? m[2])!;
      return [keyed('period', m[0], [`fy:${y}`, `n:${y}`], [`fy:${y}`])];
    },
    text.includes('FY') || text.includes('iscal'),
  );
  pass(QUARTER, (m) => period(m[0], 'q', Number(m[1] ?? m[2]), year(m[3])), text.includes('Q'));
  pass(HALF, (m) => period(m[0], 'h', Number(m[1] ?? m[2]), year(m[3])), text.includes('H'));
  pass(
    MID,
    (m) => [keyed('period', m[0], [`mid:${m[1]}`, `n:${m[1]}`], [`mid:${m[1]}`])],
    text.includes('mid') || text.includes('Mid'),
  );
  pass(VERSION, (m) => {
    const written = m[1] ?? m[2] ?? m[3]!;
    // "Python 3.5%" or "Version 2.5 million" are not versions.
    if (m[3] && AFTER_NUMBER.test(text.slice(m.index + m[0].length))) return undefined;
    // `5.307.431` is a number grouped by stops (as most of Europe writes), not a version.
    if (m[2] && /^\d{1,3}(?:\.\d{3})+$/.test(m[2])) return undefined;
    return [keyed('version', m[0], [`vw:${written}`], [`vw:${written}`])];
  });
  return { facts, text };
}
