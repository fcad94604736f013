import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkCitations } from '../../../src/research/checks/citations.js';
import { checkGrounding } from '../../../src/research/checks/grounding/index.js';
import { refreshIndex } from '../../../src/research/documents/index.js';
import { extractiveAnswer } from '../../../src/research/extractive/index.js';
import { markdownSentences } from '../../../src/research/text.js';
import { ROOT } from '../../support/cli.js';
import { sqliteStoreNow } from '../../support/stores.js';

const REFUNDS =
  'A support agent can refund up to $1000 per order without approval. Customers may return unused items ' +
  'within thirty days of delivery. Finance audits 2% of refunds every month.';
const APPROVALS =
  'Refunds above $1,000 and up to $5,000 need the approval of a team lead, within 5 business days.';
const sources = [
  { n: 1, text: REFUNDS },
  { n: 2, text: APPROVALS },
];
const unsupported = (answer: string, s = sources) => checkGrounding(answer, s).unsupported;

describe('checkGrounding', () => {
  it('treats $1,000 as 1000 and 30 as thirty, both ways', async () => {
    const result = checkGrounding(
      'An agent may refund up to $1,000 without approval [1]. Unused items can be returned within 30 days [1].',
      sources,
    );
    expect(result).toEqual({ checked: 2, notChecked: [], unsupported: [] });
    const reverse = [{ n: 1, text: 'Refunds of up to 1,000 dollars. Returns within 30 days.' }];
    expect(unsupported('Agents refund up to $1000 [1]. Returns take thirty days [1].', reverse)).toEqual([]);
  });

  it('flags a sentence whose number is not in its cited source, saying what is missing', async () => {
    const result = checkGrounding(
      'Agents can refund up to $1,000 [1]. Returns are accepted within 45 days, and 3% are audited [1].',
      sources,
    );
    expect(result.checked).toBe(2);
    expect(result.unsupported).toEqual([
      {
        sentence: 'Returns are accepted within 45 days, and 3% are audited [1].',
        cites: [1],
        missing: ['45 days', '3%'],
      },
    ]);
  });

  it('passes a correct answer, and ignores uncited sentences, markers, list ordinals and heading numbers', async () => {
    const answer = [
      '## 1. Refund limits',
      '',
      'Support agents can refund up to $1,000 per order without approval [1]. Larger refunds, up to $5,000, need a team lead [2].',
      '',
      '1. Unused items: thirty days from delivery [1].',
      '2. Audits cover 2% of refunds each month [1, 2].',
      '3. Approvals take up to five business days [2].',
      '',
      'In 2019 the rules were different.',
    ].join('\n');
    expect(checkGrounding(answer, sources)).toEqual({ checked: 5, notChecked: [], unsupported: [] });
  });

  it('checks quoted phrases, ignoring case, spacing and punctuation', async () => {
    expect(unsupported('The policy says “REFUND up to $1000   per order” [1].')).toEqual([]);
    expect(unsupported('It is "without approval." [1]')).toEqual([]);
    expect(unsupported('The policy says "refunds are final" and applies to "unused items" [1].')).toEqual([
      {
        sentence: 'The policy says "refunds are final" and applies to "unused items" [1].',
        cites: [1],
        missing: ['"refunds are final"'],
      },
    ]);
    // A one-word quotation is not a phrase; a phrase must match whole words.
    expect(unsupported('Items must be "unused" [1].')).toEqual([]);
    expect(unsupported('It says "port refund" [1].')).toHaveLength(1);
  });

  it('matches whole numbers only: 200 is not in 2000 nor in 1,200', async () => {
    const s = [{ n: 1, text: 'The fee is 2000 euros, or 1,200 for members, from 2200 onwards.' }];
    expect(unsupported('The fee is 200 euros [1].', s)[0]?.missing).toEqual(['200 euros']);
    expect(unsupported('Members pay 1200, others 2,000 [1].', s)).toEqual([]);
    expect(unsupported('Members pay 120 [1].', s)[0]?.missing).toEqual(['120']);
  });

  it('accepts a number found in any source the sentence cites, but not in one it does not cite', async () => {
    expect(unsupported('Team leads approve refunds up to $5,000 [1][2].')).toEqual([]);
    expect(unsupported('Team leads approve refunds up to $5,000 [1, 2].')).toEqual([]);
    expect(unsupported('Team leads approve refunds up to $5,000 [1].')).toEqual([
      { sentence: 'Team leads approve refunds up to $5,000 [1].', cites: [1], missing: ['$5,000'] },
    ]);
  });

  it('compares percentages, amounts and durations by value', async () => {
    const s = [
      {
        n: 1,
        text: 'The fund holds $1.5 million. A discount of 15 percent applies. Fees: €50 or USD 1000. Ninety-nine seats, a hundred desks, one thousand chairs; the trial lasts 2 weeks.',
      },
    ];
    expect(
      unsupported(
        'The fund holds $1,500,000, or $1.5M [1]. The discount is 15% [1]. The fee is 50 or $1,000 [1]. There are 99 seats, 100 desks and 1000 chairs; the trial is two weeks [1].',
        s,
      ),
    ).toEqual([]);
    expect(unsupported('The discount is 16% and the fund $15 million [1].', s)[0]?.missing).toEqual([
      '16%',
      '$15 million',
    ]);
    expect(unsupported('The trial lasts 3 weeks [1].', s)[0]?.missing).toEqual(['3 weeks']);
  });

  it('matches dates across the forms they are written in', async () => {
    const s = [{ n: 1, text: 'Last reviewed: 2026-03-01. The office closes on 24 December 2026 at 5 pm.' }];
    expect(
      unsupported(
        'The policy was reviewed on March 1, 2026 [1]. It closes on 2026-12-24 at 17:00 [1]. Closing is December 24 [1].',
        s,
      ),
    ).toEqual([]);
    expect(unsupported('It was reviewed on 1 March 2026, in March 2026 [1].', s)).toEqual([]);
    expect(unsupported('It was reviewed on March 2, 2026 [1].', s)[0]?.missing).toEqual(['March 2, 2026']);
    expect(unsupported('It closes at 6 pm [1].', s)[0]?.missing).toEqual(['6 pm']);
  });

  it('leaves citations that name no source to the citation check', async () => {
    expect(checkGrounding('Refunds up to $999 [7].', sources)).toEqual({
      checked: 0,
      notChecked: [],
      unsupported: [],
    });
    expect(unsupported('Refunds up to $999 [1][7].')).toEqual([
      { sentence: 'Refunds up to $999 [1][7].', cites: [1, 7], missing: ['$999'] },
    ]);
  });

  it('skips a source list at the end of the answer', async () => {
    const answer =
      'Agents refund up to $1000 [1].\n\n## Sources\n\n[1] Refunds — content/refunds.md (read 2026-05-04)';
    expect(checkGrounding(answer, sources)).toEqual({ checked: 1, notChecked: [], unsupported: [] });
  });

  it('passes an extractive answer: sentences copied from their sources', async () => {
    const dir = join(ROOT, 'content');
    const files = (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.md'));
    const docs = files.map((f, i) => ({ n: i + 1, text: readFileSync(join(dir, f), 'utf8') }));
    const answer = docs.flatMap((d) => markdownSentences(d.text).map((s) => `- ${s} [${d.n}]`)).join('\n');
    const all = checkGrounding(answer, docs);
    // Sentences with a figure, date or quotation are checked; the rest are counted as not checked.
    expect(all.checked).toBeGreaterThan(90);
    expect(all.notChecked.length).toBeGreaterThan(50);
    expect(all.unsupported).toEqual([]);
    // Citing the wrong document is caught.
    const shifted = answer.replace(/\[(\d+)\]$/gm, (_, n) => `[${(Number(n) % docs.length) + 1}]`);
    expect(checkGrounding(shifted, docs).unsupported.length).toBeGreaterThan(20);

    // And the extractive answerer's own output, checked against the documents it quoted.
    const store = sqliteStoreNow(':memory:');
    await refreshIndex(store, dir);
    for (const question of ['How much can a support agent refund?', 'When must expenses be submitted?']) {
      const { answer, sources } = await extractiveAnswer(store, dir, question);
      const withText = sources.map((s) => ({ n: s.n, text: readFileSync(s.location, 'utf8') }));
      const result = checkGrounding(answer, withText);
      expect(result.checked).toBeGreaterThan(0);
      expect(result.unsupported).toEqual([]);
    }
    // "What is the refund limit?" is answered from the Refunds Policy's own rule first, every line cited.
    const { answer: limit, sources: limitSources } = await extractiveAnswer(
      store,
      dir,
      'What is the refund limit?',
    );
    expect(limit.split('\n')[0]).toMatch(/^- A support agent can refund up to \$200 per order/);
    expect(limitSources[0]?.title).toBe('Refunds Policy');
    expect(
      checkCitations(
        limit,
        limitSources.map((s) => s.n),
      ).uncited,
    ).toEqual([]);
    await store.close();
  });

  it('checks many claims against long sources (its speed is measured in bench/grounding.mjs)', async () => {
    const text = `${REFUNDS} ${APPROVALS} `.repeat(200); // about 50 KB each
    const many = Array.from({ length: 10 }, (_, i) => ({ n: i + 1, text }));
    const answer = Array.from(
      { length: 200 },
      (_, i) => `Refunds up to $1,000 need ${i} approvals [${(i % 10) + 1}].`,
    );
    const result = checkGrounding(answer.join('\n'), many);
    expect(result.checked).toBe(200);
    expect(result.unsupported).toHaveLength(200 - 3); // of 0…199, only 2, 5 and 30 (thirty) are in the text
  });
});

// Numbers written the ways a writer might restate a source's figure.
const FILLER = ['the', 'limit', 'is', 'about', 'for', 'each', 'order', 'with', 'staff', 'per', 'day'];
const WORDS = ['', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
const TEENS = [
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const inWords = (n: number) =>
  n < 10
    ? WORDS[n]!
    : n < 20
      ? TEENS[n - 10]!
      : `${TENS[Math.floor(n / 10)]}${n % 10 ? `-${WORDS[n % 10]}` : ''}`;
const grouped = (n: number) => n.toLocaleString('en-US');

type Figure = { kind: 'number'; value: number } | { kind: 'date'; y: number; m: number; d: number };
const figure: fc.Arbitrary<Figure> = fc.oneof(
  fc.integer({ min: 0, max: 2_000_000_000 }).map((value) => ({ kind: 'number' as const, value })),
  fc.integer({ min: 2, max: 99 }).map((value) => ({ kind: 'number' as const, value })),
  fc.integer({ min: 1, max: 999 }).map((k) => ({ kind: 'number' as const, value: k * 100_000 })),
  fc
    .record({
      y: fc.integer({ min: 1990, max: 2099 }),
      m: fc.integer({ min: 1, max: 12 }),
      d: fc.integer({ min: 1, max: 28 }),
    })
    .map((date) => ({ kind: 'date' as const, ...date })),
);

/**
 * A figure written one of several equivalent ways, within one kind of quantity (`kind`): money, percent,
 * days, or a bare number. The same value in another unit is another fact ($5 is not 5%).
 */
function spell(f: Figure, kind: number, style: number): string {
  if (f.kind === 'date') {
    const month = MONTHS[f.m - 1]!;
    const iso = `${f.y}-${String(f.m).padStart(2, '0')}-${String(f.d).padStart(2, '0')}`;
    return [iso, `${month} ${f.d}, ${f.y}`, `${f.d} ${month} ${f.y}`][style % 3]!;
  }
  const v = f.value;
  const bare = [String(v), grouped(v)];
  if (v >= 2 && v < 100) bare.push(inWords(v));
  const money = [`$${grouped(v)}`, `USD ${v}`, `${grouped(v)} dollars`];
  if (v >= 100_000 && v % 100_000 === 0) money.push(`$${v / 1_000_000} million`, `$${v / 1_000_000}M`);
  const days = [`${v} days`];
  if (v >= 2 && v < 100) days.push(`${inWords(v)} days`);
  const forms = [bare, money, [`${v}%`, `${v} percent`], days][kind % 4]!;
  return forms[style % forms.length]!;
}

it('tells apart currencies, units, versions and quarters, but accepts a bare number for any unit', async () => {
  const source = {
    n: 1,
    text: 'The fee is USD 1,200. Claims take 30 days. Version 2.3.1 shipped; revenue grew 15% in Q3 2024. Limit: 500.',
  };
  const flagged = (sentence: string) =>
    checkGrounding(sentence, [source]).unsupported.flatMap((u) => u.missing);
  expect(flagged('The fee is 1,200 euros [1].')).toEqual(['1,200 euros']);
  expect(flagged('The fee is $1,200 [1].')).toEqual([]);
  expect(flagged('Claims take 30 weeks [1].')).toEqual(['30 weeks']);
  expect(flagged('Claims take thirty days [1].')).toEqual([]);
  expect(flagged('Version 2.3.2 shipped [1].')).toEqual(['2.3.2']);
  expect(flagged('Version 2.3.1 shipped [1].')).toEqual([]);
  expect(flagged('Revenue grew 15% in Q4 [1].')).toEqual(['Q4']);
  expect(flagged('Revenue grew 15% in Q3 2024 [1].')).toEqual([]);
  expect(flagged('The limit is $500 [1].')).toEqual([]);
});

it('never flags a sentence built only from its cited source’s own figures, however they are written', async () => {
  const case_ = fc.record({
    figures: fc.array(fc.tuple(figure, fc.nat(), fc.nat(), fc.nat()), { minLength: 1, maxLength: 6 }),
    filler: fc.array(fc.constantFrom(...FILLER), { minLength: 1, maxLength: 4 }),
    other: fc.array(figure, { maxLength: 3 }),
  });
  fc.assert(
    fc.property(case_, ({ figures, filler, other }) => {
      const gap = ` ${filler.join(' ')} `;
      const source = [
        ...figures.map(([f, kind, style]) => spell(f, kind, style)),
        ...other.map((f) => spell(f, 0, 0)),
      ].join(`${gap}and `);
      const sentence = `Staff ${figures.map(([f, kind, , style]) => spell(f, kind, style)).join(gap)} [1].`;
      const result = checkGrounding(sentence, [
        { n: 1, text: `Policy: ${source}.` },
        { n: 2, text: 'Nothing relevant here.' },
      ]);
      expect(result.checked).toBe(1);
      expect(result.unsupported).toEqual([]);
    }),
    { numRuns: 500 },
  );
});

// Real prose with the abbreviations, number forms and dates that trip sentence splitters and number readers.
const PROSE = [
  'Dr. Müller of the U.S. office confirmed the budget of €1.234,56 on Sept. 30, 2026. The fee rose to 2.500 € vs. 2.300 € a year earlier, i.e. by 8,7 %.',
  'Mr. Okafor (No. 4 on the list) said the Swiss unit pays CHF 1’000 per seat; the Indian unit pays ₹1,50,000 a year, e.g. for training.',
  'Registration runs March 1–15, 2026, and the audit is due Mar. 7 at 9.30am. The freezer holds −5 °C; the cellar 12 °C.',
  'Revenue reached $2.5 million in FY2026, up 4% on H1 2025. The board met on 01.03.2026 and again on 03/04/2026.',
  'The service moved to Python 3.10 and client v2.4 in mid-2026. Training lasts one and a half hours, roughly 90 minutes.',
  'Prof. Chen approved 10 000 licences at USD 1,000 each, approx. 1.5m in total. St. Louis gets thirty days, Ft. Worth fifteen percent.',
].join('\n\n');

it('never flags a sentence copied word for word from its cited source (real text, with abbreviations)', async () => {
  const dir = join(ROOT, 'content');
  const files = (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.md'));
  const docs = [PROSE, ...files.map((f) => readFileSync(join(dir, f), 'utf8'))].map((text, i) => ({
    n: i + 1,
    text,
    sentences: markdownSentences(text).filter((s) => !s.includes('—')),
  }));
  const pick = fc.array(
    fc.tuple(fc.nat(docs.length - 1), fc.nat(), fc.constantFrom('prose', 'bullet', 'lead-in')),
    { minLength: 1, maxLength: 8 },
  );
  fc.assert(
    fc.property(pick, (picks) => {
      const lines = picks.map(([d, k, form]) => {
        const doc = docs[d]!;
        const sentence = doc.sentences[k % doc.sentences.length]!;
        const cited = `${sentence.replace(/[.!?]$/, '')} [${doc.n}].`;
        return form === 'prose'
          ? cited
          : form === 'bullet'
            ? `- ${cited}`
            : `The source says [${doc.n}]:\n- ${sentence}`;
      });
      const result = checkGrounding(lines.join('\n'), docs);
      expect(result.unsupported).toEqual([]);
    }),
    { numRuns: 200 },
  );
});
