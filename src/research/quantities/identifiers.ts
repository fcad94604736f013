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
  // "A320s", "787-9s": the plural of a model is the model.
  return `id:${ALIASES[h] ?? h}${number.replace(/(?<=\d)s$/, '').toLowerCase()}`;
}

/**
 * An identifier's fact: its key, the key under a joint name's first head too ("ISO/IEC 27001" is "ISO
 * 27001"), and (given only) the numbers of a hyphenated model number, so that an answer naming the model
 * without its maker ("the 787-9", read as two numbers) holds. "RFC 2" gives no 2: it is not two RFCs.
 */
function identifier(raw: string, keys: string[], number: string): Fact {
  const numbers = /\d-\d/.test(number) ? (number.match(/\d+/g) ?? []).map((n) => `n:${Number(n)}`) : [];
  return keyed('identifier', raw, [...keys, ...numbers], keys);
}
const JOINT_BEFORE = /([A-Z]{2,5})\/$/;

/** Reads identifiers; returns the facts and the text with those spans blanked. */
export function readIdentifiers(input: string): { facts: Fact[]; text: string } {
  const named = readAll(input, NAMED, (m) => {
    const keys = [identifierKey(m[1]!, m[2]!)];
    const joint = JOINT_BEFORE.exec(input.slice(Math.max(0, m.index - 6), m.index));
    if (joint) keys.push(identifierKey(joint[1]!, m[2]!));
    return [identifier(m[0], keys, m[2]!)];
  });
  const codes = readAll(named.text, CODE, (m) => {
    const [, letters, , digits] = m;
    if (CURRENCY_CODES.has(letters!.toUpperCase())) return undefined;
    // Lower case before a hyphen is a word's prefix ("pre-2020", "top-10"); one lower-case letter is a
    // factor or a symbol ("x2"): both are left to the number reader.
    if (letters === letters!.toLowerCase() && (m[2] || letters!.length === 1)) return undefined;
    return [identifier(m[0], [identifierKey(letters!, digits!)], digits!)];
  });
  return { facts: [...named.facts, ...codes.facts], text: codes.text };
}
