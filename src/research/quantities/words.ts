import type { Fact } from './fact.js';
import { approximation, textBefore, YEAR_LIKE } from './numbers.js';
import { FRACTION_PERCENT, quantity, type Reading, TIME_WORDS, UNIT_AFTER, unitOf } from './units.js';

// Numbers written as words, with what they count: "thirty days", "fifteen percent", "twenty-five",
// "one hundred and five", "a dozen", "one and a half hours" (1.5 hours), "half an hour", "an hour and a half".

const SMALL =
  'zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen'.split(
    ' ',
  );
const TENS: Record<string, number> = {
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
};
const WORD_SCALE: Record<string, number> = {
  dozen: 12,
  hundred: 100,
  thousand: 1e3,
  million: 1e6,
  billion: 1e9,
};
const ORDINALS: Record<string, number> = {
  ...Object.fromEntries(
    'first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth'
      .split(' ')
      .map((w, i) => [w, i + 1]),
  ),
  ...Object.fromEntries(Object.entries(TENS).map(([w, n]) => [`${w.slice(0, -1)}ieth`, n])),
};
/** Denominators of fractions in words: "two thirds", "three-fifths", "a quarter". */
const DENOMINATORS: Record<string, number> = {
  half: 2,
  halves: 2,
  third: 3,
  thirds: 3,
  quarter: 4,
  quarters: 4,
  fourths: 4,
  ...Object.fromEntries(
    'fifth sixth seventh eighth ninth tenth'.split(' ').flatMap((w, i) => [
      [w, i + 5],
      [`${w}s`, i + 5],
    ]),
  ),
};
const FRACTION = new RegExp(
  `\\b(${SMALL.slice(1, 11).join('|')}|an?)[\\s-]+(${Object.keys(DENOMINATORS)
    .sort((a, b) => b.length - a.length)
    .join(
      '|',
    )})\\b(?!\\s+(?:of\\s+(?:the\\s+)?)?(?:\\d|year|quarter|century))(?:\\s+of\\s+an?\\s+(percentage\\s+points?|basis\\s+points?|\\w+))?`,
  'gi',
);
const HALF_SCALE = /\bhalf\s+an?\s+(dozen|hundred|thousand|million|billion)\b/gi;
const SCALE_AFTER = /^\s+(dozen|hundred|thousand|million|billion)\b/i;
const SIGN_WORD = /(?:^|\W)(?:minus|negative)\s+$/i;
// Number words and ordinals, whole words only, lower case or capitalised. Grouped by first letter
// (`[Tt](?:wo|hree|…)`) rather than matched ignoring case, so that each position is rejected quickly.
const byFirst = new Map<string, string[]>();
for (const w of [...SMALL, ...Object.keys(TENS), ...Object.keys(WORD_SCALE), ...Object.keys(ORDINALS)])
  byFirst.set(w[0]!, [...(byFirst.get(w[0]!) ?? []), w.slice(1)]);
const NUMBER_WORD = new RegExp(
  `\\b(?:${[...byFirst].map(([c, rest]) => `[${c.toUpperCase()}${c}](?:${rest.join('|')})`).join('|')})\\b`,
  'g',
);
// An ordinal that ranks ("ranked fourth", "the second-largest", "third place") is a figure to check.
const RANK_BEFORE = /(?:rank(?:ed|s|ing)?|placed|came|finish(?:ed|es|ing)?)\s+(?:the\s+)?$/i;
const RANK_AFTER = /^(?:[\s-]+(?:\p{L}+est|most|least)(?!\p{L})|\s+(?:place|position|spot)(?!\p{L}))/iu;
// "a"/"an" right before a scale word are read where a scale word is found, not by the scan.
const A_BEFORE = /(?<!\w)[Aa]n?[\s-]+$/;
const UNIT_HERE = new RegExp(`^${UNIT_AFTER}`, 'u');
const AND_A_HALF = /^\s+and\s+a\s+half\b/i;
const DURATION = '(seconds?|minutes?|hours?|days?|weeks?|months?|years?)';
const HALF_UNIT = new RegExp(
  `\\bhalf\\s+(?:an?\\s+)${DURATION}\\b|\\ban?[\\s-]+${DURATION.replace(/s\?/g, '')}[\\s-]+and[\\s-]+a[\\s-]+half\\b`,
  'gi',
);
const HALF_AN = new RegExp(`half\\s+(?:an?\\s+)${DURATION}\\b`, 'gi');

/** Reads "half an hour" (0.5 hours) and "an hour and a half" (1.5 hours), then every run of number words. */
export function readNumberWords(input: string): Fact[] {
  const facts: Fact[] = [];
  // Without "and a half" only "half an hour" can match: that pattern starts with a word, found fast.
  const halves = !/half/i.test(input) ? undefined : /and[\s-]+a[\s-]+half/i.test(input) ? HALF_UNIT : HALF_AN;
  let text = !halves
    ? input
    : input.replace(halves, (raw: string, half: string | undefined, ...rest: unknown[]) => {
        // HALF_AN has one group, HALF_UNIT two: the match's offset is the first number after them.
        const whole = typeof rest[0] === 'string' ? rest[0] : undefined;
        const at = rest.find((a): a is number => typeof a === 'number') ?? 0;
        // "just over half an hour": the words before make it approximate, as they do a figure in digits.
        const approx = approximation(textBefore(input, at));
        const reading = { value: half ? 0.5 : 1.5, unit: unitOf(undefined, half ?? whole), approx };
        facts.push(quantity(raw, [reading]));
        return ' '.repeat(raw.length);
      });
  if (/half|third|quarter|fourth|fifth|sixth|seventh|eighth|ninth|tenth/i.test(text))
    text = readFractions(text, facts);
  if (/\bhalf\s/i.test(text)) halfOf(text, facts);
  if (MULTIPLIER_STEMS.some((w) => text.includes(w))) multiplied(text, facts);
  oneUnit(text, facts);
  let run: { word: string; start: number; end: number }[] = [];
  const flush = () => {
    if (run.length === 0) return;
    const first = run[0]!;
    // A scale after digits ("2.5 million") belongs to the number the digit reader read.
    if (first.word in WORD_SCALE && /\d\s*$/.test(text.slice(Math.max(0, first.start - 3), first.start))) {
      run = [];
      return;
    }
    let end = run.at(-1)!.end;
    // Only a text that says "and a half" somewhere can say it here.
    const half = halves === HALF_UNIT ? AND_A_HALF.exec(text.slice(end, end + 20)) : null;
    if (half) end += half[0].length;
    // "two and a half thousand"
    const scale = half ? SCALE_AFTER.exec(text.slice(end, end + 12)) : null;
    if (scale) end += scale[0].length;
    const unitText = UNIT_HERE.exec(text.slice(end, end + 40))?.[0];
    const raw = text.slice(first.start, end) + (unitText ?? '');
    const unit = unitOf(undefined, unitText);
    const weak = run.length === 1 && first.word === 'one' && !unit && !half;
    const before = textBefore(text, first.start);
    const sign = SIGN_WORD.test(before) ? -1 : 1;
    const approx = approximation(before);
    const factor = scale ? WORD_SCALE[scale[1]!.toLowerCase()]! : 1;
    for (const value of wordValues(run.map((t) => t.word))) {
      const fact = quantity(raw, [{ value: sign * (value + (half ? 0.5 : 0)) * factor, unit, approx }]);
      facts.push(weak ? { ...fact, weak } : fact);
    }
    run = [];
  };
  for (const m of text.matchAll(NUMBER_WORD)) {
    const word = m[0].toLowerCase();
    if (word in ORDINALS) {
      // "forty-second": a compound ordinal is a figure; a lone "first" or "third" mostly is not.
      const prev = run.at(-1);
      if (
        prev &&
        prev.word in TENS &&
        /^[\s-]$/.test(text.slice(prev.end, m.index)) &&
        ORDINALS[word]! < 10
      ) {
        run.pop();
        flush();
        const raw = text.slice(prev.start, m.index + m[0].length);
        facts.push(quantity(raw, [{ value: TENS[prev.word]! + ORDINALS[word]! }]));
        continue;
      }
      flush();
      const end = m.index + m[0].length;
      const rank =
        RANK_BEFORE.test(text.slice(Math.max(0, m.index - 16), m.index)) ||
        RANK_AFTER.test(text.slice(end, end + 16));
      const fact = quantity(m[0], [{ value: ORDINALS[word]! }]);
      facts.push(rank ? fact : { ...fact, weak: true });
      continue;
    }
    if (word in WORD_SCALE) {
      const a = A_BEFORE.exec(text.slice(Math.max(0, m.index - 16), m.index));
      if (a) {
        flush();
        const start = m.index - a[0].length;
        run.push({ word: 'a', start, end: start + (a[0][1] === 'n' ? 2 : 1) });
      }
    }
    // Words join a run across spaces and hyphens, and across "and" after a scale ("one hundred and five").
    const prev = run.at(-1);
    const gap = prev ? text.slice(prev.end, m.index) : '';
    const joins = prev && (/^[\s-]+$/.test(gap) || (prev.word in WORD_SCALE && /^\s+and\s+$/i.test(gap)));
    if (!joins || word === 'a' || word === 'an') flush();
    run.push({ word, start: m.index, end: m.index + m[0].length });
  }
  flush();
  return facts;
}

/**
 * Reads fractions in words ("three-fifths", "two thirds of an hour", "a quarter") and "half a million";
 * returns the text with them blanked. A fraction gives its value and its per cent.
 */
function readFractions(input: string, facts: Fact[]): string {
  let text = input.replace(HALF_SCALE, (raw, scale: string) => {
    facts.push(quantity(raw, [{ value: WORD_SCALE[scale.toLowerCase()]! / 2 }]));
    return ' '.repeat(raw.length);
  });
  text = text.replace(
    FRACTION,
    (raw, count: string, denominator: string, of: string | undefined, at: number) => {
      // "two and a quarter", "an hour and a third": part of a mixed quantity, not read here; but "and a
      // third of them" is a share.
      if (
        /\band\s$/i.test(text.slice(Math.max(0, at - 4), at)) &&
        !/^\s+of\b/i.test(text.slice(at + raw.length))
      )
        return raw;
      const lower = count.toLowerCase();
      const n = lower === 'a' || lower === 'an' ? 1 : SMALL.indexOf(lower);
      const d = DENOMINATORS[denominator.toLowerCase()]!;
      // "one half" but not "second half"; a plural denominator needs a count above one ("two thirds").
      if (n < 1 || n >= d || (denominator.endsWith('s') && n === 1)) return raw;
      const value = n / d;
      const approx = approximation(textBefore(text, at));
      // "a quarter of a million": a scale, not a unit.
      const scale = of ? WORD_SCALE[of.toLowerCase()] : undefined;
      const unit = of && !scale ? unitOf(undefined, ` ${of}`) : undefined;
      const readings: Reading[] = scale
        ? [{ value: value * scale, step: scale / 100, approx }]
        : unit?.measure
          ? [{ value, unit, step: 0.01, approx }]
          : [
              { value, step: 0.001, approx },
              { value: value * 100, unit: FRACTION_PERCENT, step: approx ? 10 : 1, approx },
            ];
      facts.push(quantity(raw, readings));
      return ' '.repeat(raw.length);
    },
  );
  return text;
}

const SHARE = new RegExp(
  `\\b(\\d{1,3}|${SMALL.slice(1, 11).join('|')})\\s+(?:in|out\\s+of)\\s+(\\d{1,4}|${SMALL.slice(2).join('|')}|${Object.keys(TENS).join('|')}|a\\s+hundred)\\b`,
  'gi',
);
const HALF_OF = /\b[Hh]alf\s+(?:of|the|all|their|its|our)\b/g;
const count = (w: string): number => {
  const lower = w.toLowerCase();
  if (/^\d/.test(w)) return Number(w);
  if (lower === 'a hundred') return 100;
  return TENS[lower] ?? SMALL.indexOf(lower);
};

/**
 * "Half of the staff" holds "50%"; only given, never checked: "half of" is as often a manner of speaking.
 */
function halfOf(text: string, facts: Fact[]): void {
  for (const m of text.matchAll(HALF_OF))
    facts.push({ ...quantity(m[0], [{ value: 50, unit: FRACTION_PERCENT }]), weak: true });
}

// Looked for with includes(): a regular expression's alternation scans a long source many times slower.
const MULTIPLIER_STEMS = ['oubl', 'ripl', 'rebl', 'uadrupl', 'alv', 'wice'];
const MULTIPLIED =
  /\b(?:(doubl)(?:ed|es|ing)|(tripl|trebl)(?:ed|es|ing)|(quadrupl)(?:ed|es|ing)|(halv)(?:ed|es|ing)|(twice)(?=\s+(?:as|the)\b))\b/gi;

/** "doubled", "tripled", "halved", "twice as many": a ratio, on the scale of "three times" and "2.5-fold". */
function multiplied(text: string, facts: Fact[]): void {
  const times = unitOf(undefined, 'times');
  for (const m of text.matchAll(MULTIPLIED)) {
    const value = m[1] || m[5] ? 2 : m[2] ? 3 : m[3] ? 4 : 0.5;
    facts.push(quantity(m[0], [{ value, unit: times }]));
  }
}

/**
 * Shares in words ("one in four", "3 out of 10", "fewer than three in five") as the per cent they are,
 * given and checked as that, with the words before them making them approximate; returns the text with
 * them blanked, so that their numbers are not also read as counts. Not "1 in 2019" (a year).
 */
export function readShares(text: string): { facts: Fact[]; text: string } {
  if (!/\b(?:in|out of)\s/.test(text)) return { facts: [], text };
  const facts: Fact[] = [];
  const out = text.replace(SHARE, (raw, x: string, y: string, at: number) => {
    const [a, b] = [count(x), count(y)];
    if (!(a > 0 && b > a) || YEAR_LIKE.test(y)) return raw;
    const approx = approximation(textBefore(text, at));
    // Said roughly, a share in words is to the nearest ten per cent or so ("about one in three": 28–38%).
    facts.push(
      quantity(raw, [{ value: (100 * a) / b, unit: FRACTION_PERCENT, approx, step: approx ? 10 : 1 }]),
    );
    return ' '.repeat(raw.length);
  });
  return { facts, text: out };
}

const A_UNIT = new RegExp(`\\b(?:[Aa]n?|[Pp]er)\\s(${TIME_WORDS})(?!\\p{L})`, 'gu');

/**
 * "within a fortnight", "lasts a decade", "per hour": one of a time unit, which a source states as surely
 * as "14 days". Only given, never checked: in an answer "an hour" is as often a rate's end as a duration.
 */
function oneUnit(text: string, facts: Fact[]): void {
  for (const m of text.matchAll(A_UNIT))
    facts.push({ ...quantity(m[0], [{ value: 1, unit: unitOf(undefined, m[1]) }]), weak: true });
}

/** The values of a run of number words; words that cannot belong to one number start the next. */
function wordValues(words: string[]): number[] {
  const values: number[] = [];
  let total = 0;
  let current = 0;
  let last: 'small' | 'ten' | 'scale' | undefined;
  let started = false;
  const flush = () => {
    if (started) values.push(total + current);
    total = 0;
    current = 0;
    last = undefined;
    started = false;
  };
  for (const w of words) {
    if (w === 'a' || w === 'an') {
      flush();
      current = 1;
    } else if (w in TENS) {
      if (last === 'small' || last === 'ten') flush();
      current += TENS[w]!;
      last = 'ten';
      started = true;
    } else if (SMALL.includes(w)) {
      const v = SMALL.indexOf(w);
      if (last === 'small' || (last === 'ten' && v >= 10)) flush();
      current += v;
      last = 'small';
      started = true;
    } else {
      const scale = WORD_SCALE[w]!;
      if (scale < 1000) current = (current || 1) * scale;
      else {
        total += (current || 1) * scale;
        current = 0;
      }
      last = 'scale';
      started = true;
    }
  }
  flush();
  return values;
}
