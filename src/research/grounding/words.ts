import type { Fact } from './fact.js';
import { quantity, UNIT_AFTER, unitOf } from './units.js';

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
const ORDINALS: Record<string, number> = Object.fromEntries(
  'first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth'
    .split(' ')
    .map((w, i) => [w, i + 1]),
);
// Number words and ordinals, whole words only, lower case or capitalised. Grouped by first letter
// (`[Tt](?:wo|hree|…)`) rather than matched ignoring case, so that each position is rejected quickly.
const byFirst = new Map<string, string[]>();
for (const w of [...SMALL, ...Object.keys(TENS), ...Object.keys(WORD_SCALE), ...Object.keys(ORDINALS)])
  byFirst.set(w[0]!, [...(byFirst.get(w[0]!) ?? []), w.slice(1)]);
const NUMBER_WORD = new RegExp(
  `\\b(?:${[...byFirst].map(([c, rest]) => `[${c.toUpperCase()}${c}](?:${rest.join('|')})`).join('|')})\\b`,
  'g',
);
// "a"/"an" right before a scale word are read where a scale word is found, not by the scan.
const A_BEFORE = /(?<!\w)[Aa]n?[\s-]+$/;
const UNIT_HERE = new RegExp(`^${UNIT_AFTER}`, 'iu');
const AND_A_HALF = /^\s+and\s+a\s+half\b/i;
const DURATION = '(seconds?|minutes?|hours?|days?|weeks?|months?|years?)';
const HALF_UNIT = new RegExp(
  `\\bhalf\\s+(?:an?\\s+)${DURATION}\\b|\\ban?\\s+${DURATION.replace(/s\?/g, '')}\\s+and\\s+a\\s+half\\b`,
  'gi',
);
const HALF_AN = new RegExp(`half\\s+(?:an?\\s+)${DURATION}\\b`, 'gi');

/** Reads "half an hour" (0.5 hours) and "an hour and a half" (1.5 hours), then every run of number words. */
export function readNumberWords(input: string): Fact[] {
  const facts: Fact[] = [];
  // Without "and a half" only "half an hour" can match: that pattern starts with a word, found fast.
  const halves = !/half/i.test(input) ? undefined : /and\s+a\s+half/i.test(input) ? HALF_UNIT : HALF_AN;
  const text = !halves
    ? input
    : input.replace(halves, (raw, half?: string, whole?: string) => {
        facts.push(quantity(raw, [{ value: half ? 0.5 : 1.5, unit: unitOf(undefined, half ?? whole) }]));
        return ' '.repeat(raw.length);
      });
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
    const unitText = UNIT_HERE.exec(text.slice(end, end + 40))?.[0];
    const raw = text.slice(first.start, end) + (unitText ?? '');
    const unit = unitOf(undefined, unitText);
    const weak = run.length === 1 && first.word === 'one' && !unit && !half;
    for (const value of wordValues(run.map((t) => t.word))) {
      const fact = quantity(raw, [{ value: value + (half ? 0.5 : 0), unit }]);
      facts.push(weak ? { ...fact, weak } : fact);
    }
    run = [];
  };
  for (const m of text.matchAll(NUMBER_WORD)) {
    const word = m[0].toLowerCase();
    if (word in ORDINALS) {
      flush();
      facts.push({ ...quantity(m[0], [{ value: ORDINALS[word]! }]), weak: true });
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
