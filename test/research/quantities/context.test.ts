import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkGrounding } from '../../../src/research/checks/grounding/index.js';
import { zoneOffsets } from '../../../src/research/quantities/cldr.js';

// Words around a figure that change what it means: how often, in which time zone, with which sign.

type Verdict = 'flagged' | 'not checked' | 'supported';
const verdict = (source: string, claim: string): Verdict => {
  const g = checkGrounding(`${claim} [1].`, [{ n: 1, text: source }]);
  return g.unsupported.length > 0 ? 'flagged' : g.notChecked.length > 0 ? 'not checked' : 'supported';
};

const WORDS = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
const ADVERBS: Record<string, string> = { day: 'daily', week: 'weekly', month: 'monthly', year: 'yearly' };
const HOURS: Record<string, number> = { day: 24, week: 168 };

describe('how often', () => {
  const times = (k: number) => (k === 1 ? 'once' : k === 2 ? 'twice' : `${k} times`);
  const inWords = (k: number) => (k === 1 ? 'once' : k === 2 ? 'twice' : `${WORDS[k - 1]} times`);

  it('holds a frequency however it is said, and flags another count', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.constantFrom('day', 'week', 'month', 'year'),
        fc.integer({ min: 1, max: 3 }),
        (k, unit, change) => {
          const source = `Take the tablets ${times(k)} a ${unit}, with food.`;
          expect(verdict(source, `The tablets are taken ${inWords(k)} per ${unit}`)).toBe('supported');
          expect(verdict(source, `The tablets are taken ${inWords(k)} ${ADVERBS[unit]}`)).toBe('supported');
          // Every so many hours is the same rate when the hours divide the day or the week.
          const hours = HOURS[unit];
          if (hours && hours % k === 0)
            expect(verdict(source, `The tablets are taken every ${hours / k} hours`)).toBe('supported');
          expect(verdict(source, `The tablets are taken ${inWords(k + change)} per ${unit}`)).toBe('flagged');
        },
      ),
      { numRuns: 120 },
    );
  });

  it('reads every other and every N', () => {
    expect(verdict('Water the plant every other day.', 'Water it every two days')).toBe('supported');
    expect(verdict('Water the plant every other day.', 'Water it every day')).toBe('flagged');
    expect(verdict('Tests are repeated every 3 months.', 'Tests are repeated every three months')).toBe(
      'supported',
    );
  });

  it('does not flag a frequency the source states in a form it does not read', () => {
    expect(verdict('Take 1 tablet b.i.d. for 14 days.', 'Take 1 tablet twice daily for 14 days')).toBe(
      'not checked',
    );
  });
});

describe('time zones (CLDR’s abbreviations)', () => {
  const single = ['EST', 'PST', 'CEST', 'JST', 'IST', 'GMT', 'BST', 'EDT', 'AEST'].filter(
    (z) => zoneOffsets(z)?.length === 1,
  );
  const clock = (minutes: number) =>
    `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

  it('holds the same instant in another zone, and flags the same clock time in a zone with another offset', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 23 }),
        fc.constantFrom(0, 15, 30, 45),
        fc.constantFrom(...single),
        fc.constantFrom(...single),
        (hour, minute, from, to) => {
          const [a, b] = [zoneOffsets(from)![0]!, zoneOffsets(to)![0]!];
          const at = hour * 60 + minute;
          const there = (((at - a + b) % 1440) + 1440) % 1440;
          const source = `The results call starts at ${clock(at)} ${from} on Thursday.`;
          expect(verdict(source, `The call starts at ${clock(there)} ${to}`)).toBe('supported');
          if (a !== b) expect(verdict(source, `The call starts at ${clock(at)} ${to}`)).toBe('flagged');
        },
      ),
      { numRuns: 150 },
    );
  });

  it('reads offsets written after UTC or GMT, and does not flag a zone the source leaves out', () => {
    expect(verdict('Results at 9:00 UTC+2.', 'Results at 7:00 UTC')).toBe('supported');
    expect(verdict('Results at 9:00 UTC+2.', 'Results at 9:00 UTC')).toBe('flagged');
    expect(verdict('The call starts at 14:00.', 'The call starts at 14:00 CET')).toBe('supported');
    expect(verdict('The call starts at 14:00 CET.', 'The call starts at 14:00 ET')).toBe('flagged');
  });
});

describe('signs written as accounts write them', () => {
  it('reads (1,200) as a negative figure: a loss holds, a profit is never passed', () => {
    fc.assert(
      fc.property(fc.integer({ min: 10, max: 999_999 }), (n) => {
        const written = n.toLocaleString('en-US');
        const source = `Operating result by segment: Consumer (${written}); Industrial 4,310.`;
        expect(verdict(source, `Consumer posted a loss of ${written}`)).toBe('supported');
        expect(verdict(source, `Consumer posted a profit of ${written}`)).not.toBe('supported');
      }),
      { numRuns: 80 },
    );
    expect(verdict('The survey (2019) found it.', 'The survey in 2019 found it')).toBe('supported');
  });
});

describe('units in any spacing, and compounds', () => {
  it.each([
    ['The heater draws 5-kW.', 'The heater draws 5,000 W', 'The heater draws 5,000 kW'],
    ['The heater draws 5kW.', 'The heater draws 5 kilowatts', 'The heater draws 5 megawatts'],
    ['The alcohol limit is 0.5‰.', 'The limit is 0.05%', 'The limit is 0.5%'],
    ['The rate is 4.5 per mille.', 'The rate is 0.45%', 'The rate is 4.5%'],
    ['He is 5 ft 11 in tall.', 'He is 71 inches tall', 'He is 72 inches tall'],
    ['The race took 2h05.', 'The race took 125 minutes', 'The race took 2 hours and 15 minutes'],
    [
      'Everest is 8,849 m (29,032 ft) high.',
      'Everest is about 29,000 feet high',
      'Everest is about 28,000 feet high',
    ],
  ])('%s', (source, right, wrong) => {
    expect(verdict(source, right)).toBe('supported');
    expect(verdict(source, wrong)).toBe('flagged');
  });
});
