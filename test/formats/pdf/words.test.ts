import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pageRanges, undecodable } from '../../../src/formats/pdf/decode.js';
import type { Line } from '../../../src/formats/pdf/layout.js';
import { runningKey } from '../../../src/formats/pdf/running.js';
import { joinHyphenated, keepsHyphen, vocabulary } from '../../../src/formats/pdf/words.js';

// The small laws under the PDF reader: when a line-end hyphen is the word's own, what a running
// header's text is once page numbers are set aside, and when a page's text is glyph codes.

const noList = () => undefined;
const list = (words: string[]) => () => new Set(words);

describe('keepsHyphen', () => {
  it('follows the document first: the form it uses elsewhere, the more frequent when it uses both', () => {
    const words = vocabulary(['reusable parts', 'a well-known trick', 'e-mail and email and email']);
    expect(keepsHyphen('re', 'usable', words, noList)).toBe(false);
    expect(keepsHyphen('well', 'known', words, list(['wellknown']))).toBe(true);
    expect(keepsHyphen('e', 'mail', words, noList)).toBe(false);
  });

  it('asks the word list when the document does not say, and works without one', () => {
    const words = vocabulary(['nothing about these words']);
    const dict = list(['consideration', 'con', 'side', 'ration', 'cross', 'platform']);
    expect(keepsHyphen('con', 'sideration', words, dict)).toBe(false);
    expect(keepsHyphen('cross', 'platform', words, dict)).toBe(true);
    // Without a list, only two words the document uses on their own, three letters or more, keep it.
    expect(keepsHyphen('con', 'sideration', words, noList)).toBe(false);
    expect(keepsHyphen('these', 'words', words, noList)).toBe(true);
    expect(keepsHyphen('in', 'formation', vocabulary(['in formation']), noList)).toBe(false);
  });

  it('never lets the halves of a broken word vouch for each other', () => {
    const lines = ['processors improv-', 'ing the state of the art'];
    const words = vocabulary(lines);
    expect(words.has('improv')).toBe(false);
    expect(words.has('ing')).toBe(false);
    expect(joinHyphenated(lines, words, noList)).toEqual(['processors improving', 'the state of the art']);
  });

  it('joins any word broken at any point when the document uses it whole elsewhere', () => {
    const word = fc.stringMatching(/^[a-z]{4,12}$/);
    fc.assert(
      fc.property(
        word,
        fc.integer({ min: 1, max: 11 }),
        fc.constantFrom('-', '\u00ad', '\u2010'),
        (w, at, hyphen) => {
          const cut = Math.min(at, w.length - 1);
          const lines = [`It says ${w.slice(0, cut)}${hyphen}`, `${w.slice(cut)} here, and ${w} again.`];
          expect(joinHyphenated(lines, vocabulary(lines), noList)[0]).toBe(`It says ${w}`);
        },
      ),
    );
  });
});

describe('runningKey', () => {
  it('sets aside page numbers, arabic or roman, and spacing', () => {
    expect(runningKey('Debian Reference 12 / 233')).toBe(runningKey('Debian  Reference 13 / 233'));
    expect(runningKey('xiv')).toBe(runningKey('7'));
    expect(runningKey('Chapter 3. Installing')).not.toBe(runningKey('Chapter 4. Backups'));
  });
});

describe('undecodable', () => {
  const line = (text: string): Line => ({ text, y: 0, x: 0, size: 10, paragraph: false });

  it('tells glyph codes (control, private-use, replacement characters) from text', () => {
    expect(
      undecodable([
        line(
          '\u0003\u0011\u0012\u0005\u0006 \u0013\u0014\u0002\u0016\u0017 \u0001\u0004\u0006\u0007\u000e\u000f\u0010\u0015\u0018\u0019',
        ),
      ]),
    ).toBe(true);
    expect(
      undecodable([
        line(
          '\ue001\ue002\ue003\ue004\ue005 \ue006\ue007\ue008\ue009\ue00a\ue00b\ue00c\ue00d\ue00e\ue00f\ue010\ue011\ue012\ue013\ue014',
        ),
      ]),
    ).toBe(true);
    expect(undecodable([line('A formula with a few private-use symbols \ue001 \ue002 is still text.')])).toBe(
      false,
    );
    expect(undecodable([line('Cells\tapart\tby\ttabs are text too, and so is this line.')])).toBe(false);
  });

  it('names pages as ranges', () => {
    expect(pageRanges([2, 3, 4, 5])).toBe('2–5');
    expect(pageRanges([1, 3, 4, 9])).toBe('1, 3–4 and 9');
    expect(pageRanges([7])).toBe('7');
  });
});
