import { type Fact, keyed, readAll } from './fact.js';

// Identifiers are names that hold digits, compared as whole tokens, never as figures: a standard or a
// legal reference (RFC 9110, ISO 27001, Article 17), a product or model (Windows 11, iPhone 15, Q400,
// F-35, A320), a road (I-95, Route 66). RFC 9110 is not RFC 9111, and Windows 11 is not eleven windows.
// Two shapes: letters glued or hyphenated to digits (a code), and a known kind of name, then a number.
// Codes that are periods (Q3, H1, FY26) or versions (v2.1) are read before this, by periods.ts.

const CURRENCY_CODES = new Set('USD EUR GBP CAD AUD NZD HKD SGD JPY CHF INR CNY RS FR SFR'.split(' '));

// Letters (at most five, starting with a capital) glued or hyphenated to digits: F-35, Q400, I-95, A320,
// RFC9110, CO2, COVID-19. A lower-case start is a word with a digit in it (mp3, h264), read the same way.
const CODE =
  /(?<![\p{L}\p{N}_$€£¥₹.,-])([A-Za-z][A-Za-z]{0,4})([-‐‑–]?)(\d+(?:\.\d+)*[A-Za-z]{0,2})(?![\p{L}\p{N}]|[.,]\d)/gu;

// Kinds of name a number identifies. Case as usually written; a name in capitals is also read.
const HEADS = [
  'RFC',
  'ISO',
  'IEC',
  'IEEE',
  'EN',
  'DIN',
  'BS',
  'ASTM',
  'ANSI',
  'PEP',
  'CVE',
  'ECMA',
  'ITU-T',
  'NIST SP',
  'SP',
  'Windows',
  'Windows Server',
  'Android',
  'iPhone',
  'iPad',
  'Pixel',
  'Galaxy',
  'Xbox',
  'PlayStation',
  'Surface',
  'Model',
  'Boeing',
  'Airbus',
  'Mk',
  'Apollo',
  'Falcon',
  'Route',
  'Highway',
  'Interstate',
  'Motorway',
  'Article',
  'Art.',
  'Section',
  'Sec.',
  '§',
  'Chapter',
  'Part',
  'Title',
  'Rule',
  'Regulation',
  'Directive',
  'Annex',
  'Appendix',
  'Schedule',
  'Form',
  'Clause',
  'Paragraph',
  'Figure',
  'Fig.',
  'Table',
  'Flight',
];
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const NAMED = new RegExp(
  `(?<![\\p{L}\\p{N}])(${HEADS.sort((a, b) => b.length - a.length)
    .map((h) => (h === h.toUpperCase() ? escapeRe(h) : `${escapeRe(h)}|${escapeRe(h.toUpperCase())}`))
    .join(
      '|',
    )})\\s?(\\d+(?:[.:-]\\d+)*[A-Za-z]?)(?![\\p{N}]|[.,]\\d|\\s?(?:%|percent|per\\s?cent)(?!\\p{L}))`,
  'gu',
);

// The same kind of name, abbreviated: "Art. 17" is "Article 17".
const ALIASES: Record<string, string> = {
  art: 'article',
  sec: 'section',
  '§': 'section',
  fig: 'figure',
  mk: 'mark',
};

/** The token an identifier is compared as: case, spaces and hyphens between its parts do not matter. */
export function identifierKey(head: string, number: string): string {
  const h = head.toLowerCase().replace(/[\s.]+/g, '');
  return `id:${ALIASES[h] ?? h}${number.toLowerCase()}`;
}

/** Reads identifiers; returns the facts and the text with those spans blanked. */
export function readIdentifiers(input: string): { facts: Fact[]; text: string } {
  const named = readAll(input, NAMED, (m) => {
    const key = identifierKey(m[1]!, m[2]!);
    return [keyed('identifier', m[0], [key], [key])];
  });
  const codes = readAll(named.text, CODE, (m) => {
    const [, letters, , digits] = m;
    if (CURRENCY_CODES.has(letters!.toUpperCase())) return undefined;
    // Lower case before a hyphen is a word's prefix ("pre-2020", "top-10"); one lower-case letter is a
    // factor or a symbol ("x2"): both are left to the number reader.
    if (letters === letters!.toLowerCase() && (m[2] || letters!.length === 1)) return undefined;
    const key = identifierKey(letters!, digits!);
    return [keyed('identifier', m[0], [key], [key])];
  });
  return { facts: [...named.facts, ...codes.facts], text: codes.text };
}
