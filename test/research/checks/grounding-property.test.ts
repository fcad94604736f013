import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkGrounding } from '../../../src/research/checks/grounding/index.js';

// The grounding check's law, as properties: a quantity written in any form the reader supports holds
// against the same quantity in any other form; a quantity changed in its value, unit, scale or currency
// is flagged, or (where the reader cannot read it) reported as not checked — never passed as supported.

/** A quantity and every way of writing it, each a phrase to put in a sentence. */
interface Case {
  forms: string[];
  /** Forms of nearby but different quantities. */
  wrong: string[];
}

const WORDS =
  'zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen'.split(
    ' ',
  );
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const inWords = (n: number): string =>
  n < 20 ? WORDS[n]! : `${TENS[Math.floor(n / 10)]}${n % 10 ? `-${WORDS[n % 10]}` : ''}`;

/** Digits in every grouping style: 12,345 · 12345 · 12 345 (and 12.345,5 for a fraction in the comma style). */
function digitForms(n: number, decimals: number): string[] {
  const fixed = n.toFixed(decimals);
  const [int, frac] = fixed.split('.');
  const group = (sep: string) => int!.replace(/\B(?=(\d{3})+(?!\d))/g, sep);
  const forms = [`${group(',')}${frac ? `.${frac}` : ''}`, `${int}${frac ? `.${frac}` : ''}`];
  if (int!.length > 4) forms.push(`${group('\u202f')}${frac ? `.${frac}` : ''}`);
  if (frac && int!.length > 3) forms.push(`${group('.')},${frac}`);
  return forms;
}

const money = fc
  .record({
    units: fc.integer({ min: 1, max: 999_999 }),
    cents: fc.boolean(),
    currency: fc.constantFrom(
      { forms: ['$', 'US$', 'USD '], after: [' USD', ' US dollars'], other: '€' },
      { forms: ['€', 'EUR '], after: [' EUR', ' euros'], other: '£' },
      { forms: ['£', 'GBP '], after: [' GBP'], other: '$' },
    ),
  })
  .map(({ units, cents, currency }): Case => {
    const value = cents ? units + 0.25 : units;
    const decimals = cents ? 2 : 0;
    const digits = digitForms(value, decimals);
    const forms = [
      ...digits.flatMap((d) => currency.forms.map((c) => `${c}${d}`)),
      ...currency.after.map((a) => `${digits[0]}${a}`),
    ];
    const off = digitForms(value + (value < 10 ? 1 : 10 ** Math.floor(Math.log10(value))), decimals)[0]!;
    const wrong = [`${currency.forms[0]}${off}`, `${currency.other}${digits[0]}`];
    return { forms, wrong };
  });

const scaled = fc
  .record({ tenths: fc.integer({ min: 11, max: 999 }), scale: fc.constantFrom(1e6, 1e9) })
  .map(({ tenths, scale }): Case => {
    const value = tenths / 10;
    const word = scale === 1e6 ? 'million' : 'billion';
    const short = scale === 1e6 ? 'm' : 'bn';
    const full = Math.round(value * scale).toLocaleString('en-US');
    const forms = [`$${value} ${word}`, `$${value}${short}`, `$${full}`, `USD ${value} ${word}`];
    const other = scale === 1e6 ? 'billion' : 'million';
    const wrong = [`$${value} ${other}`, `$${(value + 1).toFixed(1)} ${word}`, `€${value} ${word}`];
    return { forms, wrong };
  });

const DIMENSIONS = [
  { base: ['minutes', 'min'], times: 60, small: ['seconds'], other: ['hours', 'days'] },
  { base: ['km', 'kilometres'], times: 1000, small: ['m', 'metres'], other: ['miles', 'kg'] },
  { base: ['GB', 'gigabytes'], times: 1000, small: ['MB'], other: ['TB', 'GiB'] },
  { base: ['kg', 'kilograms'], times: 1000, small: ['g', 'grams'], other: ['lb', 't'] },
  { base: ['kW', 'kilowatts'], times: 1000, small: ['W'], other: ['kWh', 'MW'] },
];

const measured = fc
  .record({ n: fc.integer({ min: 2, max: 99 }), dim: fc.constantFrom(...DIMENSIONS) })
  .map(({ n, dim }): Case => {
    const forms = [
      ...dim.base.map((u) => `${n} ${u}`),
      ...dim.small.map((u) => `${(n * dim.times).toLocaleString('en-US')} ${u}`),
      `${inWords(n)} ${dim.base.at(-1)}`,
    ];
    const wrong = [...dim.other.map((u) => `${n} ${u}`), `${n + 1} ${dim.base[0]}`, `${n} ${dim.small[0]}`];
    return { forms, wrong };
  });

const percent = fc
  .record({ n: fc.integer({ min: 1, max: 99 }), half: fc.boolean() })
  .map(({ n, half }): Case => {
    const v = half ? `${n}.5` : String(n);
    const forms = [`${v}%`, `${v} per cent`, `${v} percent`, ...(half ? [] : [`${inWords(n)} per cent`])];
    const wrong = [`${n + 1}%`, `${v} percentage points`, `${v} basis points`];
    return { forms, wrong };
  });

const identifier = fc
  .record({
    head: fc.constantFrom('RFC', 'ISO', 'Windows', 'Route', 'Article', 'F-', 'A', 'Q'),
    n: fc.integer({ min: 2, max: 9999 }),
  })
  .map(({ head, n }): Case => {
    const glued = head.endsWith('-') || head.length === 1;
    const id = (k: number) => (glued ? `${head}${k}` : `${head} ${k}`);
    const forms = [id(n), ...(glued ? [] : [`${head.toUpperCase()} ${n}`])];
    const wrong = [id(n + 1), `${n} ${head.replace('-', '').toLowerCase()}s`];
    return { forms, wrong };
  });

const temperature = fc.integer({ min: 1, max: 40 }).map((c): Case => {
  const f = Math.round((c * 9) / 5 + 32);
  const exactF = (c * 9) / 5 + 32 === f;
  const forms = [`${c} °C`, `${c}°C`, `${c} degrees Celsius`, ...(exactF ? [`${f} °F`] : [])];
  // The sign changed, the scale changed, the value changed.
  const wrong = [`-${c} °C`, `minus ${c} °C`, `${c} °F`, `${c + 2} °C`];
  return { forms, wrong };
});

/** A claim's verdict against one source text. */
const verdict = (claim: string, text: string) => {
  const g = checkGrounding(`${claim} [1].`, [{ n: 1, text }]);
  return g.unsupported.length > 0 ? 'flagged' : g.notChecked.length > 0 ? 'not checked' : 'supported';
};

/** A phrase said in an answer's sentence against a phrase in a source's. */
const judge = (answerPhrase: string, sourcePhrase: string) =>
  verdict(
    `The figure stated is ${answerPhrase} in this case`,
    `In the source, the figure is ${sourcePhrase} for the year.`,
  );

const SUPERSCRIPT = '⁰¹²³⁴⁵⁶⁷⁸⁹';
const superscript = (e: number) =>
  `${e < 0 ? '⁻' : ''}${[...String(Math.abs(e))].map((d) => SUPERSCRIPT[Number(d)]).join('')}`;

/** A figure in scientific notation in each way it is written, in words where there is one, and in full. */
const scientific = fc
  .record({ tenths: fc.integer({ min: 11, max: 99 }), exponent: fc.integer({ min: -19, max: 12 }) })
  .filter(({ tenths }) => tenths % 10 !== 0)
  .map(({ tenths, exponent }): Case => {
    const m = (tenths / 10).toFixed(1);
    const words: Record<number, string> = { 3: 'thousand', 6: 'million', 9: 'billion' };
    const full =
      exponent >= 1 ? Math.round(tenths * 10 ** (exponent - 1)).toLocaleString('en-US') : undefined;
    const forms = [
      `${m} × 10^${exponent}`,
      `${m}×10${superscript(exponent)}`,
      `${m} x 10^${exponent}`,
      `${m}e${exponent}`,
      ...(words[exponent] ? [`${m} ${words[exponent]}`] : []),
      ...(full ? [full] : []),
    ];
    const wrong = [
      `${(tenths / 10 + 1).toFixed(1)} × 10^${exponent}`,
      `${m} × 10^${exponent + 1}`,
      `${m}e${exponent - 1}`,
    ];
    return { forms, wrong };
  });

/** A length, data or energy per a time, and the same in its named unit (a speed, a data rate, a power). */
const perTime = fc
  .record({ n: fc.integer({ min: 2, max: 90 }), kind: fc.constantFrom('speed', 'power') })
  .map(
    ({ n, kind }): Case =>
      kind === 'speed'
        ? {
            forms: [
              `${n} km/s`,
              `${n} km per second`,
              `${(n * 3600).toLocaleString('en-US')} km/h`,
              `${(n * 1000).toLocaleString('en-US')} m/s`,
            ],
            wrong: [`${n} km/h`, `${n} m/s`, `${n + 1} km/s`],
          }
        : {
            forms: [`${n} kWh per hour`, `${n} kW`, `${(n * 1000).toLocaleString('en-US')} W`],
            wrong: [`${n} MW`, `${n} kWh per day`, `${n + 1} kW`],
          },
  );

const families: [string, fc.Arbitrary<Case>][] = [
  ['scientific notation, in words and in full', scientific],
  ['a measure per a time and its named unit', perTime],
  ['money in every grouping and currency form', money],
  ['scaled amounts (million, billion, m, bn)', scaled],
  ['measures in their units and conversions', measured],
  ['per cent in digits and words', percent],
  ['identifiers', identifier],
  ['temperatures, with their sign', temperature],
];

describe('the grounding check, by property', () => {
  for (const [name, arbitrary] of families) {
    it(`${name}: every form holds against every other form`, () => {
      fc.assert(
        fc.property(arbitrary, ({ forms }) => {
          for (const a of forms)
            for (const s of forms) expect(judge(a, s), `"${a}" against "${s}"`).toBe('supported');
        }),
        { numRuns: 60 },
      );
    });
    it(`${name}: a changed value, unit, scale or currency is never passed as supported`, () => {
      fc.assert(
        fc.property(arbitrary, ({ forms, wrong }) => {
          for (const w of wrong)
            for (const s of forms) expect(judge(w, s), `"${w}" against "${s}"`).not.toBe('supported');
        }),
        { numRuns: 60 },
      );
    });
  }
});

// A unit written after a figure closes it: "rose 12% to 4.5 million units" is a percentage and a count,
// not a range that lends the second's scale back (12 million per cent) or the first's unit forward.
// Only a unit written before the figure may be the range's ("€3 to 4 billion"), checked beside it.
const count = fc
  .record({
    tenths: fc.integer({ min: 11, max: 999 }),
    word: fc.constantFrom('million', 'billion', 'thousand'),
  })
  .map(({ tenths, word }) => {
    const value = tenths / 10;
    const scale = { thousand: 1e3, million: 1e6, billion: 1e9 }[word]!;
    const full = Math.round(value * scale).toLocaleString('en-US');
    return { forms: [`${value} ${word}`, full], wrong: [`${(value + 1).toFixed(1)} ${word}`] };
  });

describe('two figures joined by "to" or "and", the first closed by its unit', () => {
  it('each holds on its own, and a change to either is never passed', () => {
    fc.assert(
      fc.property(fc.oneof(percent, measured), count, fc.constantFrom('to', 'and'), (first, second, join) => {
        const text = `In the source, output rose ${first.forms[0]} ${join} ${second.forms[0]} units last year.`;
        for (const a of first.forms) expect(verdict(`Output rose ${a}`, text), a).toBe('supported');
        for (const b of second.forms) expect(verdict(`Output reached ${b} units`, text), b).toBe('supported');
        for (const w of first.wrong) expect(verdict(`Output rose ${w}`, text), w).not.toBe('supported');
        for (const w of second.wrong)
          expect(verdict(`Output reached ${w} units`, text), w).not.toBe('supported');
      }),
      { numRuns: 80 },
    );
  });

  it('a currency written before the first figure still lends the range its scale', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 90 }), fc.constantFrom('million', 'billion'), (n, word) => {
        const text = `In the source, the cost is put at €${n} to ${n + 2} ${word} this year.`;
        expect(verdict(`The cost is at least €${n} ${word}`, text)).not.toBe('flagged');
        expect(verdict(`The cost is at most €${n + 2} ${word}`, text)).not.toBe('flagged');
        expect(verdict(`The cost is at least €${n}`, text)).toBe('flagged');
      }),
      { numRuns: 40 },
    );
  });
});

describe('a fall in words and the signed figure', () => {
  it('a source\'s "fell 2.5%" holds an answer\'s "-2.5%", and a changed figure or sign-less rise in another sentence does not', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 400 }),
        fc.constantFrom('fell', 'dropped', 'declined', 'decreased'),
        fc.constantFrom('%', ' per cent', ' million', ' kg'),
        (tenths, verb, unit) => {
          const v = tenths / 10;
          const text = `Last year output ${verb} ${v}${unit}. Costs rose ${v + 7}${unit} in the same year.`;
          expect(verdict(`Output changed by -${v}${unit}`, text)).not.toBe('flagged');
          expect(verdict(`Output changed by −${v}${unit}`, text)).not.toBe('flagged');
          expect(verdict(`Output changed by -${(v + 1).toFixed(1)}${unit}`, text)).toBe('flagged');
          // The fall is one sentence's: the other sentence's figure is not negative.
          expect(verdict(`Costs changed by -${v + 7}${unit}`, text)).toBe('flagged');
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('hundredths, shares and eras', () => {
  it("cents and pence are their currency's hundredths, both ways; another amount is flagged", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 999 }),
        fc.constantFrom(
          { sub: (n: number) => [`${n} cents`], whole: '$', other: '£' },
          { sub: (n: number) => [`${n}p`, `${n} pence`], whole: '£', other: '$' },
        ),
        (n, c) => {
          const whole = `${c.whole}${(n / 100).toFixed(2)}`;
          for (const sub of c.sub(n)) {
            expect(verdict(`It costs ${whole}`, `The ticket costs ${sub} this year.`), sub).toBe('supported');
            expect(verdict(`It costs ${sub}`, `The ticket costs ${whole} this year.`), sub).toBe('supported');
            expect(
              verdict(`It costs ${c.whole}${((n + 7) / 100).toFixed(2)}`, `The ticket costs ${sub}.`),
            ).toBe('flagged');
            expect(verdict(`It costs ${c.other}${(n / 100).toFixed(2)}`, `The ticket costs ${sub}.`)).toBe(
              'flagged',
            );
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('"a in b" is the per cent it is; its numbers are not counts; roughly, to the nearest ten per cent', () => {
    const words = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 2, max: 10 }), (a, b) => {
        fc.pre(a < b);
        const pct = (100 * a) / b;
        const text = `A survey found that ${pct.toFixed(1)}% of members attend.`;
        expect(verdict(`${words[a - 1]} in ${words[b - 1]} members attend`, text)).toBe('supported');
        expect(verdict(`${a} out of ${b} members attend`, text)).toBe('supported');
        // A share 15 points or more away is flagged, even said roughly.
        const far = pct >= 50 ? pct - 15 : pct + 15;
        const other = `A survey found that ${far.toFixed(1)}% of members attend.`;
        expect(verdict(`${a} in ${b} members attend`, other)).toBe('flagged');
        expect(verdict(`Roughly ${a} in ${b} members attend`, other)).toBe('flagged');
      }),
      { numRuns: 60 },
    );
  });

  it('a century or a decade holds the years inside it, and none outside', () => {
    const ordinal = (n: number) =>
      `${n}${n === 11 || n === 12 || n === 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th')}`;
    fc.assert(
      fc.property(fc.integer({ min: 1500, max: 2025 }), (year) => {
        const century = Math.floor((year - 1) / 100) + 1;
        const decade = year - (year % 10);
        const text = `The building was completed in ${year} after a long delay.`;
        expect(verdict(`It was completed in the ${ordinal(century)} century`, text)).toBe('supported');
        expect(verdict(`It was completed in the ${decade}s`, text)).toBe('supported');
        expect(verdict(`It was completed in the ${ordinal(century - 1)} century`, text)).not.toBe(
          'supported',
        );
        expect(verdict(`It was completed in the ${decade + 10}s`, text)).not.toBe('supported');
      }),
      { numRuns: 60 },
    );
  });
});

describe('times taken', () => {
  it('h:mm:ss, hours minutes seconds and the seconds between two such times hold each other', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 0, max: 59 }),
        fc.integer({ min: 0, max: 59 }),
        fc.integer({ min: 1, max: 300 }),
        (h, m, s, gap) => {
          const pad = (n: number) => String(n).padStart(2, '0');
          const clock = (t: number) =>
            `${Math.floor(t / 3600)}:${pad(Math.floor(t / 60) % 60)}:${pad(t % 60)}`;
          const t = h * 3600 + m * 60 + s;
          const text = `She won in ${clock(t)}, beating the record of ${clock(t + gap)} set in 2019.`;
          expect(verdict(`She won in ${h} h ${m} min ${s} s`, text)).toBe('supported');
          expect(verdict(`She won in ${h} hours ${m} minutes and ${s} seconds`, text)).toBe('supported');
          expect(verdict(`She beat the record by ${gap} seconds`, text)).toBe('supported');
          expect(verdict(`She won in ${clock(t + 3600)}`, text)).toBe('flagged');
          expect(verdict(`She won in ${h} h ${(m + 7) % 60} min ${s} s`, text)).toBe('flagged');
        },
      ),
      { numRuns: 60 },
    );
  });
});
