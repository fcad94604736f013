import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { promptTokens, textTokens } from '../../src/providers/context.js';
import { EXTRACT_SYSTEM } from '../../src/research/chain/extract-prompt.js';
import { EXTRACT_CONTEXT, planExtraction, splitText, splitToFit } from '../../src/research/fit.js';

// Every extraction request fits the model's context, and every part of a source reaches exactly one
// request: the pieces, joined, are the source (no overlap, nothing left out).

const source = (text: string) => ({
  title: 'Handbook',
  location: '/docs/handbook.md',
  status: 'read' as const,
  text,
});

/** Text of words, numbers, punctuation, line and paragraph breaks, and a few other scripts. */
const texts = fc
  .array(
    fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom('refund ', 'approval ', 'the ', 'manager ', 'a ', 'limit ') },
      { weight: 2, arbitrary: fc.constantFrom('$200, ', '12.5% ', '2026-01-31 ', '(see §4). ') },
      { weight: 1, arbitrary: fc.constantFrom('\n', '\n\n', '| a | b |\n') },
      { weight: 1, arbitrary: fc.constantFrom('退款上限 ', 'лимит ', '😀 ', 'x'.repeat(300)) },
    ),
    { maxLength: 3000, size: 'max' },
  )
  .map((parts) => parts.join(''));

describe('planExtraction', () => {
  it('property: any source length and context size → every request fits, every character is sent once', () => {
    let split = 0;
    fc.assert(
      fc.property(
        texts,
        fc.oneof(fc.integer({ min: 2048, max: 6000 }), fc.integer({ min: 2048, max: 200_000 })),
        fc.string({ minLength: 1, maxLength: 300 }),
        fc.integer({ min: 256, max: 32_000 }),
        (text, window, question, wanted) => {
          const plan = planExtraction(question, source(text), window, wanted);
          if (plan.parts.length > 1) split++;
          expect(plan.parts.map((p) => p.text).join('')).toBe(text);
          for (const part of plan.parts) {
            expect(part.prompt).toContain(part.text);
            const sent = promptTokens({
              system: EXTRACT_SYSTEM,
              messages: [{ role: 'user', content: part.prompt }],
            });
            expect(sent + plan.maxTokens).toBeLessThanOrEqual(Math.min(window, EXTRACT_CONTEXT));
          }
          expect(plan.maxTokens).toBeGreaterThanOrEqual(256);
        },
      ),
      { numRuns: 200 },
    );
    // The property was tried on sources that needed several requests, not only on ones that fit in one.
    expect(split).toBeGreaterThan(20);
  });

  it('a source that fits is one request; without a known context, one request as before', () => {
    expect(planExtraction('q', source('short'), 8192, 8192).parts).toHaveLength(1);
    const long = 'word '.repeat(40_000);
    expect(planExtraction('q', source(long), undefined, 8192)).toMatchObject({ maxTokens: 8192 });
    const plan = planExtraction('q', source(long), 8192, 8192);
    expect(plan.maxTokens).toBe(2048);
    expect(plan.parts.length).toBeGreaterThan(10);
    expect(plan.parts[1]!.prompt).toMatch(/^Question: q\n\n\(Part 2 of \d+ of a long source/);
  });
});

describe('splitText', () => {
  it('cuts at a paragraph end where one is in the second half', () => {
    expect(splitText('aaaa bbbb.\n\ncccc dddd', 14)).toEqual(['aaaa bbbb.\n\n', 'cccc dddd']);
    expect(splitText('aaaa bbbb cccc', 10)).toEqual(['aaaa bbbb ', 'cccc']);
    expect(splitText('', 10)).toEqual(['']);
  });

  it('property: pieces are the text, none longer than asked, none empty', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 2000 }),
        fc.integer({ min: 2, max: 500 }),
        (text, max) => {
          const pieces = splitText(text, max);
          expect(pieces.join('')).toBe(text);
          for (const p of pieces) expect(p.length).toBeLessThanOrEqual(max);
          if (text) for (const p of pieces) expect(p.length).toBeGreaterThan(0);
        },
      ),
    );
  });

  it('splitToFit splits text denser than prose until each piece fits its tokens', () => {
    const dense = '退款上限为两百元。'.repeat(500);
    const pieces = splitToFit(dense, 1000);
    expect(pieces.join('')).toBe(dense);
    for (const p of pieces) expect(textTokens(p)).toBeLessThanOrEqual(1000);
  });
});
