import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  coverage,
  exactMatchers,
  exactTokens,
  fuse,
  leadWeights,
  RRF_K,
} from '../../../src/research/retrieval/fuse.js';
import { words } from '../../../src/research/text.js';

// The exact-match rule: a query that holds a code, name or figure found verbatim in a passage ranks
// that passage first, wherever the two rankings put it; and a near miss (one character changed) does not.

interface P {
  id: number;
  text: string;
}

const word = fc.constantFrom(
  'policy',
  'travel',
  'expense',
  'approval',
  'manager',
  'limit',
  'report',
  'hotel',
  'train',
  'receipt',
  'budget',
  'team',
);
const upper = fc.constantFrom(...'ABCDEFGHJKLMNPRSTVWXZ');
const digit = fc.constantFrom(...'0123456789');

/** Exact things as writers put them in a query. */
const exact = fc.oneof(
  // Codes: "ZX-4471", "INV204"
  fc
    .tuple(
      fc.array(upper, { minLength: 2, maxLength: 3 }),
      fc.constantFrom('-', ''),
      fc.array(digit, { minLength: 3, maxLength: 5 }),
    )
    .map(([l, sep, d]) => `${l.join('')}${sep}${d.join('')}`),
  // Figures: "$1,250", "37.5%", "2026"
  fc.integer({ min: 1000, max: 99_999 }).map((n) => `$${n.toLocaleString('en-US')}`),
  fc.tuple(fc.integer({ min: 1, max: 99 }), digit).map(([a, b]) => `${a}.${b}%`),
  fc.integer({ min: 1990, max: 2099 }).map(String),
  // Names, capitalised, not the query's first word: "Okonkwo"
  fc
    .tuple(upper, fc.array(fc.constantFrom(...'aeioukmnrstvz'), { minLength: 4, maxLength: 8 }))
    .map(([u, rest]) => `${u}${rest.join('')}`),
);

/** One character of the token changed, so it is no longer the same code, figure or name. */
const perturb = (token: string, at: number): string => {
  const i = token.search(/[\p{L}\p{N}]/u) + (at % Math.max(1, token.replace(/[^\p{L}\p{N}]/gu, '').length));
  const c = token[i]!;
  const swapped = /\d/.test(c) ? String((Number(c) + 1) % 10) : c === 'q' ? 'w' : 'q';
  return token.slice(0, i) + swapped + token.slice(i + 1);
};

const arb = fc.record({
  fillers: fc.array(fc.array(word, { minLength: 3, maxLength: 12 }), { minLength: 3, maxLength: 30 }),
  token: exact,
  queryWords: fc.array(word, { minLength: 1, maxLength: 4 }),
  target: fc.nat(),
  bm25Order: fc.array(fc.nat(), { maxLength: 40 }),
  vectorOrder: fc.array(fc.nat(), { maxLength: 40 }),
  at: fc.nat(),
});

type Case = typeof arb extends fc.Arbitrary<infer T> ? T : never;

function setUp(v: Case, inPassage: string) {
  const passages: P[] = v.fillers.map((w, id) => ({ id, text: w.join(' ') }));
  const target = v.target % passages.length;
  passages[target]!.text = `${passages[target]!.text} ${inPassage} ${v.fillers[0]![0]}.`;
  // Rankings drawn at random: the target may be anywhere in either list, or in neither.
  const order = (picks: number[]) =>
    [...new Set(picks.map((n) => n % passages.length))].map((i) => passages[i]!);
  const query = `${v.queryWords[0]!.replace(/^./, (c) => c.toUpperCase())} ${v.queryWords.slice(1).join(' ')} ${v.token}?`;
  return { passages, target, bm25: order(v.bm25Order), vector: order(v.vectorOrder), query };
}

const run = (s: ReturnType<typeof setUp>) =>
  fuse(
    s.bm25,
    s.vector,
    (p) => String(p.id),
    (p) => p.text,
    exactMatchers(exactTokens(s.query)),
    s.passages,
  );

describe('exact-match rule', () => {
  it('ranks the passage holding the query’s code, name or figure first, whatever the rankings', () => {
    fc.assert(
      fc.property(arb, (v) => {
        const s = setUp(v, v.token);
        expect(exactTokens(s.query)).toContain(v.token);
        expect(run(s)[0]!.item.id).toBe(s.target);
      }),
      { numRuns: 300 },
    );
  });

  it('gives no boost to a near miss: one character changed', () => {
    fc.assert(
      fc.property(arb, (v) => {
        const s = setUp(v, perturb(v.token, v.at));
        const fused = run(s);
        // Without the boost, every score is a pure fusion score (below 1), and the near miss is not pulled up.
        expect(fused.every((f) => f.score < 1)).toBe(true);
        if (!s.bm25.includes(s.passages[s.target]!) && !s.vector.includes(s.passages[s.target]!))
          expect(fused.map((f) => f.item.id)).not.toContain(s.target);
      }),
      { numRuns: 300 },
    );
  });

  it('does not take a code out of a longer one, nor a figure out of a bigger number', () => {
    const [m] = exactMatchers(['ZX-447']);
    expect(m!.test('code ZX-4471 applies')).toBe(false);
    expect(m!.test('code zx-447, see')).toBe(true);
    const [f] = exactMatchers(['$1,250']);
    expect(f!.test('up to 1,250.')).toBe(true);
    expect(f!.test('up to $1,250,000')).toBe(false);
  });

  it('does not take months and weekdays for names: English capitalises them by rule', () => {
    expect(exactTokens('Is the office shut on Monday in May when Okonkwo visits Lisbon?')).toEqual([
      'Okonkwo',
      'Lisbon',
    ]);
  });

  it('fuses by reciprocal rank: a passage both lists rank beats one only one list ranks first', () => {
    const a = { id: 1, text: 'a' };
    const b = { id: 2, text: 'b' };
    const c = { id: 3, text: 'c' };
    const fused = fuse(
      [a, b],
      [c, b],
      (p) => String(p.id),
      (p) => p.text,
    );
    expect(fused.map((f) => f.item.id)).toEqual([2, 1, 3]);
    expect(fused[0]).toMatchObject({ bm25Rank: 2, vectorRank: 2, score: 2 / (RRF_K + 2) });
    expect(fused[1]).toMatchObject({ bm25Rank: 1, vectorRank: null });
  });
});

describe('which list leads', () => {
  const bm25 = ['a', 'b', 'c'];
  const vector = ['c', 'b', 'a'];
  const order = (weights: { bm25: number; vector: number }) =>
    fuse(bm25, vector, String, () => '', [], [], weights).map((f) => f.item);

  it('keywords lead when the best keyword passage holds half or more of the question’s words', () => {
    const c = coverage(['nightly', 'hotel', 'limits'], words('The nightly hotel limit is $200'));
    expect(c).toBe(1);
    expect(order(leadWeights(c))).toEqual(['a', 'b', 'c']);
  });

  it('the vectors lead when it holds little (the question is worded otherwise)', () => {
    const c = coverage(['ride', 'bike', 'claim'], words('Bikes are parked in the basement'));
    expect(c).toBeCloseTo(1 / 3);
    expect(order(leadWeights(c))).toEqual(['c', 'b', 'a']);
  });

  it('the list that leads is never reordered by the other, which only fills in after it', () => {
    // 50 candidates each; the other ranks the leading list's last passages first.
    const a = Array.from({ length: 50 }, (_, i) => `p${i}`);
    const b = [...a.slice(40).reverse(), 'only-b'];
    for (const c of [0, 0.2, 0.35, 0.65, 0.8, 1]) {
      const weights = leadWeights(c);
      // `a` is the list that leads at this coverage: the keyword list, or the vector list.
      const [bm25, vector] = weights.bm25 > weights.vector ? [a, b] : [b, a];
      const fused = fuse(bm25, vector, String, () => '', [], [], weights);
      expect(fused.map((f) => f.item)).toEqual([...a, 'only-b']);
    }
  });

  it('between the two, both lists count: a passage both rank well beats one only one ranks first', () => {
    const weights = leadWeights(0.5);
    expect(weights.bm25).toBeCloseTo(weights.vector);
    expect(fuse(['a', 'b'], ['c', 'b'], String, () => '', [], [], weights)[0]!.item).toBe('b');
  });
});
