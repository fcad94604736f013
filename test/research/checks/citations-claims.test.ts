import { describe, expect, it } from 'vitest';
import { checkCitations } from '../../../src/research/checks/citations.js';
import { citedClaims } from '../../../src/research/checks/claims.js';
import { checkGrounding } from '../../../src/research/checks/grounding/index.js';
import { markdownSentences, proseSentences } from '../../../src/research/text.js';

describe('sentence splitting', () => {
  it('never ends a sentence at an abbreviation, an initial or a numbered reference', () => {
    const text =
      'Dr. Smith of the U.S. office signed on Sept. 30, e.g. for No. 5 vs. No. 7 [1]. J. Doe agreed. Mr. Lee left [2].';
    expect(proseSentences(text)).toEqual([
      'Dr. Smith of the U.S. office signed on Sept. 30, e.g. for No. 5 vs. No. 7 [1].',
      'J. Doe agreed.',
      'Mr. Lee left [2].',
    ]);
    expect(markdownSentences('Approx. 40 staff, i.e. most. Prof. Ng agreed on Mar. 7.')).toEqual([
      'Approx. 40 staff, i.e. most.',
      'Prof. Ng agreed on Mar. 7.',
    ]);
  });

  it('reads an abbreviation as a whole word, and an initial in any alphabet', () => {
    expect(
      proseSentences(
        'É. Zola wrote it. They met in Dec. 2025 by the zinc. Then they left. Ask 𝐀. Berg, the U.S. team.',
      ),
    ).toEqual([
      'É. Zola wrote it.',
      'They met in Dec. 2025 by the zinc.',
      'Then they left.',
      'Ask 𝐀. Berg, the U.S. team.',
    ]);
  });

  it('still ends sentences at a period, a closing quote or citations before a capital or digit', () => {
    expect(proseSentences('Refunds take 5 days. "Returns are free." 2026 was busy [1][2]. Done!')).toEqual([
      'Refunds take 5 days.',
      '"Returns are free."',
      '2026 was busy [1][2].',
      'Done!',
    ]);
  });
});

describe('citedClaims', () => {
  it('splits prose into sentences and list items into bullets, markers removed', () => {
    const answer =
      'Refunds take 5 days [1]. Returns are free [2].\n\n1. Approvals need a lead [1].\n- (2) Audits are monthly [3].';
    expect(citedClaims(answer)).toEqual([
      { text: 'Refunds take 5 days [1].', cites: [1], kind: 'sentence' },
      { text: 'Returns are free [2].', cites: [2], kind: 'sentence' },
      { text: 'Approvals need a lead [1].', cites: [1], kind: 'bullet' },
      { text: '(2) Audits are monthly [3].', cites: [3], kind: 'bullet' },
    ]);
  });

  it('takes a table row’s citations from any cell and never treats the header row as a claim', () => {
    const answer = [
      '| Plan [9] | Price | Source |',
      '|---|---:|---|',
      '| Basic | $1,200 | [1] |',
      '| Pro [2] | $4,800 | |',
    ].join('\n');
    expect(citedClaims(answer)).toEqual([
      { text: '| Basic | $1,200 | [1] |', cites: [1], kind: 'row' },
      { text: '| Pro [2] | $4,800 | |', cites: [2], kind: 'row' },
    ]);
  });

  it('lends a lead-in’s citations to the uncited items of the list or table that follows it', () => {
    const answer = [
      'The policy sets three limits [1]:',
      '',
      '- Agents refund up to $1,000.',
      '- Leads approve up to $5,000 [2].',
      '',
      'Other teams differ.',
      '- Finance audits 2%.',
    ].join('\n');
    expect(citedClaims(answer)).toEqual([
      { text: 'The policy sets three limits [1]:', cites: [1], kind: 'sentence' },
      { text: 'Agents refund up to $1,000.', cites: [1], kind: 'bullet' },
      { text: 'Leads approve up to $5,000 [2].', cites: [2], kind: 'bullet' },
    ]);
    // The citation check agrees: the items under the lead-in are cited, the list after plain prose is not.
    expect(checkCitations(answer, [1, 2]).uncited).toEqual(['- Finance audits 2%.']);
  });

  it('skips headings and the source list', () => {
    const answer =
      '## 1. Limits\n\nAgents refund up to $1,000 [1].\n\n## Sources\n\n[1] Refunds — refunds.md (2026-05-04)';
    expect(citedClaims(answer)).toEqual([
      { text: 'Agents refund up to $1,000 [1].', cites: [1], kind: 'sentence' },
    ]);
  });
});

describe('the grounding check over answer structure', () => {
  const source = {
    n: 1,
    text: 'Basic costs $1,200 for 25 seats. Pro costs $4,800 for 100 seats. Reviewed 2026-03-01.',
  };

  it('checks a table row against the source its cell cites, and not its header', () => {
    const table = [
      '| Plan | Price in 2099 | Seats |',
      '|---|---|---|',
      '| Basic | $1,200 | 25 [1] |',
      '| Pro | $4,900 | 100 [1] |',
    ].join('\n');
    const result = checkGrounding(table, [source]);
    expect(result.checked).toBe(2);
    expect(result.unsupported).toEqual([
      { sentence: '| Pro | $4,900 | 100 [1] |', cites: [1], missing: ['$4,900'] },
    ]);
  });

  it('checks the items of a cited lead-in against its sources', () => {
    const answer = 'Prices were reviewed on March 1, 2026 [1]:\n1. Basic: $1,200.\n2. Pro: $4,500.';
    expect(checkGrounding(answer, [source]).unsupported).toEqual([
      { sentence: 'Pro: $4,500.', cites: [1], missing: ['$4,500'] },
    ]);
  });

  it('does not read list numbers in the answer or the source as figures', () => {
    const numbered = { n: 1, text: '1. Basic costs $1,200.\n2. Pro costs $4,800.\n(3) Support is free.' };
    expect(
      checkGrounding('3. Basic costs $1,200 [1].\n4. Pro costs $4,800 [1].', [numbered]).unsupported,
    ).toEqual([]);
    expect(checkGrounding('Basic costs $1,200 for 2 seats [1].', [numbered]).unsupported[0]?.missing).toEqual(
      ['2'],
    );
  });
});

describe('what is a claim', () => {
  it('code is not a claim: a fenced block or a line of inline code is neither cited nor checked', () => {
    const answer = [
      'A stay is priced per night [1].',
      '',
      '```',
      'nights = 3',
      'total = nights * 120',
      '```',
      '',
      '`nights = 3`',
    ].join('\n');
    expect(citedClaims(answer).map((c) => c.text)).toEqual(['A stay is priced per night [1].']);
    expect(checkCitations(answer, [1]).uncited).toEqual([]);
  });

  it('a numbered step quoted in a list item is one claim, not "4." and the rest', () => {
    const answer =
      '- 4. If the amount is above your approval limit, request approval. Do not promise it [1].';
    expect(citedClaims(answer)).toEqual([
      {
        text: '4. If the amount is above your approval limit, request approval.',
        cites: [1],
        kind: 'bullet',
      },
      { text: 'Do not promise it [1].', cites: [1], kind: 'bullet' },
    ]);
    expect(checkCitations(answer, [1]).uncited).toEqual([]);
    expect(proseSentences('Step 4. Then 3. Done.')).toEqual(['Step 4.', 'Then 3.', 'Done.']);
  });
});
