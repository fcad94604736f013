// Scientific notation, written out as the plain decimal it stands for before anything else is read:
// "3.2 × 10^6", "3.2×10⁶", "3.2 x 10**6", "6.02e23", "1.6E-19", and a bare power "10⁶". Superscript
// digits are taken before NFKC would make "10⁶" the number 106. An exponent must be marked (a caret, **,
// superscripts or e): "3.2 × 106" is a product, not a power. Out of scope: other bases ("2^10").

const SUPERSCRIPT: Record<string, string> = {
  '⁰': '0',
  '¹': '1',
  '²': '2',
  '³': '3',
  '⁴': '4',
  '⁵': '5',
  '⁶': '6',
  '⁷': '7',
  '⁸': '8',
  '⁹': '9',
  '⁻': '-',
  '⁺': '+',
};
const EXPONENT = String.raw`(?:\s?(?:\^|\*\*)\s?(?<caret>[-−+]?\d{1,2})|(?<sup>[⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]{1,2}))`;
const NOTATION = new RegExp(
  String.raw`(?<![\p{L}\p{N}.,#_])(?:(?<mantissa>\d+(?:\.\d+)?)\s?[×x·*]\s?)?10${EXPONENT}(?![\p{N}⁰¹²³⁴⁵⁶⁷⁸⁹])` +
    String.raw`|(?<![\p{L}\p{N}.,#_-])(?<eMantissa>\d{1,3}(?:\.\d+)?)[eE](?<e>[-+]?\d{1,2})(?![\p{L}\p{N}])`,
  'gu',
);
const HINT = /10(?:\s?(?:\^|\*\*)|[⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺])|\d[eE][-+]?\d/;

/**
 * Superscript exponents of ten in caret form ("10⁶" → "10^6"), so that a text may be NFKC-normalised
 * (which makes "10⁶" the number 106) and still be read as written.
 */
export function caretPowers(text: string): string {
  return /10[⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺]/.test(text)
    ? text.replace(
        /10([⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]{1,2})(?![⁰¹²³⁴⁵⁶⁷⁸⁹])/g,
        (_, e: string) => `10^${[...e].map((c) => SUPERSCRIPT[c]).join('')}`,
      )
    : text;
}

export function writeOutPowers(text: string): string {
  if (!HINT.test(text)) return text;
  return text.replace(NOTATION, (match, ...args) => {
    const g = args.at(-1) as Record<string, string | undefined>;
    const mantissa = g.mantissa ?? g.eMantissa ?? '1';
    const raw = g.caret ?? g.e ?? [...(g.sup ?? '')].map((c) => SUPERSCRIPT[c]).join('');
    const exponent = Number(raw.replace('−', '-'));
    return Number.isInteger(exponent) ? decimal(mantissa, exponent) : match;
  });
}

/** `mantissa` × 10^`exponent` as a decimal, by moving its point: exact, where floats are not. */
function decimal(mantissa: string, exponent: number): string {
  const [int, frac = ''] = mantissa.split('.');
  const digits = `${int}${frac}`;
  const point = int!.length + exponent;
  const out =
    point <= 0
      ? `0.${'0'.repeat(-point)}${digits}`
      : point >= digits.length
        ? `${digits}${'0'.repeat(point - digits.length)}`
        : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return out
    .replace(/^0+(?=\d)/, '')
    .replace(/(\.\d*?)0+$/, '$1')
    .replace(/\.$/, '');
}
