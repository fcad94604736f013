import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkGrounding } from '../../../src/research/checks/grounding/index.js';
import { ROOT } from '../../support/cli.js';

// The case table (shared with bench/grounding.mjs, which prints the rates): per family of number and
// date forms, sentences that restate their source correctly and sentences that get a figure wrong.
interface Family {
  family: string;
  source: string;
  right: string[];
  wrong: string[];
}
const families: Family[] = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/grounding/cases.json'), 'utf8'));
// Families written after the reader was rebuilt around dimensions, to see that it generalizes:
// conversions, units it does not know, identifiers, fractions, ranges, approximations, table headers.
const later: Family[] = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/grounding/families.json'), 'utf8'));
const flagged = (f: Family, sentence: string) =>
  checkGrounding(sentence, [{ n: 1, text: f.source }]).unsupported.length > 0;

describe('the grounding case table', () => {
  it('is broad: 200 or more cases, about half right and half wrong, in every family', () => {
    const right = families.reduce((n, f) => n + f.right.length, 0);
    const wrong = families.reduce((n, f) => n + f.wrong.length, 0);
    expect(right + wrong).toBeGreaterThanOrEqual(200);
    expect(Math.abs(right - wrong) / (right + wrong)).toBeLessThan(0.1);
    for (const f of families) expect(f.right.length * f.wrong.length, f.family).toBeGreaterThan(0);
  });

  for (const f of families)
    it(`${f.family}: passes every right sentence and flags the wrong ones`, () => {
      expect(f.right.filter((s) => flagged(f, s))).toEqual([]);
      expect(f.wrong.filter((s) => !flagged(f, s))).toEqual([]);
    });

  for (const f of later)
    it(`${f.family}: passes every right sentence and flags the wrong ones`, () => {
      expect(f.right.filter((s) => flagged(f, s))).toEqual([]);
      expect(f.wrong.filter((s) => !flagged(f, s))).toEqual([]);
    });

  it('judges one-line restatements of everyday figures: right ones pass, wrong ones are flagged or not checked', () => {
    const pairs: { source: string; answer: string; right: boolean }[] = JSON.parse(
      readFileSync(join(ROOT, 'test/fixtures/grounding/pairs.json'), 'utf8'),
    );
    const verdict = (p: (typeof pairs)[number]) => {
      const g = checkGrounding(p.answer, [{ n: 1, text: p.source }]);
      return g.unsupported.length ? 'flagged' : g.notChecked ? 'not checked' : 'supported';
    };
    expect(pairs.filter((p) => p.right && verdict(p) === 'flagged')).toEqual([]);
    expect(pairs.filter((p) => !p.right && verdict(p) === 'supported')).toEqual([]);
  });

  it('says what is missing as the answer wrote it', () => {
    const [euro] = families.filter((f) => f.family === 'european decimal comma');
    const result = checkGrounding('The reserve is €1.234,00 and the discount 15,5 % [1].', [
      { n: 1, text: euro!.source },
    ]);
    expect(result.unsupported[0]?.missing).toEqual(['€1.234,00']);
  });
});

// Families written by a hand that had not seen the reader (news, earnings, trials, recipes, history,
// elections, dosing, race results, tax rules, …), kept as they were written: what the check gets wrong
// on them is measured, not tuned away (bench/grounding.mjs lists the cases). Figures that need
// arithmetic across sentences or outside knowledge (a hazard ratio as a cut, a price per square metre, a
// dose per kilogram, a journey's time from a timetable, a date's distance from another sentence's) are
// out of scope and stay false alarms. Measured before this round's laws and now: held-out.json 32 → 9
// false alarms of 134 and 11 → 8 misses of 135; held-out-2.json 51 → 26 of 135 and 4 → 6 of 133.
// held-out-3.json was measured first (22 → 9 false alarms of 100, 6 → 5 misses, from the reader before
// these rounds), then laws were drawn from it too: 5 false alarms. held-out-4.json (20 families, written
// last) was only measured: 11 → 4 false alarms of 100, 1 → 1 miss of 100.
describe('the held-out families', () => {
  for (const [file, alarms, missed] of [
    ['held-out.json', 9, 9],
    ['held-out-2.json', 26, 7],
    ['held-out-3.json', 5, 5],
    ['held-out-4.json', 4, 1],
  ] as const)
    it(`${file}: few false alarms and few wrong figures passed`, () => {
      const heldOut: Family[] = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/grounding', file), 'utf8'));
      const falseAlarms = heldOut.flatMap((f) => f.right.filter((s) => flagged(f, s)));
      const misses = heldOut.flatMap((f) =>
        f.wrong.filter((s) => checkGrounding(s, [{ n: 1, text: f.source }]).unsupported.length === 0),
      );
      expect(falseAlarms.length).toBeLessThanOrEqual(alarms);
      expect(misses.length).toBeLessThanOrEqual(missed);
    });
});
