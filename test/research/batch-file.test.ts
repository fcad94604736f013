import { describe, expect, it } from 'vitest';
import { parseBatch } from '../../src/research/run/batch-file.js';

describe('a batch file', () => {
  it('takes one question a line, skipping blank lines and # comments, numbering lines as the file does', () => {
    const text = '\uFEFFWhat is the refund limit?\r\n\n# later\n   \n  Who approves travel?  \n';
    expect(parseBatch(text)).toEqual([
      { line: 1, question: 'What is the refund limit?', options: {} },
      { line: 5, question: 'Who approves travel?', options: {} },
    ]);
  });

  it('takes JSON Lines with a question and settings, beside plain lines', () => {
    const text = [
      '{"question": "How are refunds approved?", "report": true, "depth": 2, "verify": true}',
      'A plain question',
      '{"question": " Web only ", "sites": ["https://www.europa.eu/x", "europa.eu"], "excludeSites": "bad.com", "recent": " 6M ", "perSearch": 10, "breadth": 1, "maxSources": 5}',
    ].join('\n');
    expect(parseBatch(text)).toEqual([
      {
        line: 1,
        question: 'How are refunds approved?',
        options: { report: true, depth: 2, verify: true },
      },
      { line: 2, question: 'A plain question', options: {} },
      {
        line: 3,
        question: 'Web only',
        options: {
          sites: ['www.europa.eu', 'europa.eu'],
          excludeSites: ['bad.com'],
          recent: '6m',
          perSearch: 10,
          breadth: 1,
          maxSources: 5,
        },
      },
    ]);
  });

  it('fails a bad line alone, with its number, its question when it has one, and what was wrong', () => {
    const lines = [
      '{"question": "Q1", "dept": 2}',
      '{"question": "Q2", "depth": 0}',
      '{"question": "Q3", "perSearch": 11}',
      '{"question": "Q4", "report": "yes"}',
      '{"question": "Q5", "sites": ["not a domain"]}',
      '{"question": "Q6", "recent": "soon"}',
      '{"depth": 2}',
      '{"question": 42}',
      '{"question": "  "}',
      '{"question": "Q7",',
      '["Q8"]',
      'Good one',
      '{"question": "Q9", "depth": 1.5}',
      '{"question": "Q10", "constructor": 1}',
    ];
    const entries = parseBatch(lines.join('\n'));
    expect(entries).toHaveLength(lines.length);
    expect(entries[0]).toEqual({
      line: 1,
      question: 'Q1',
      error:
        'unknown key "dept": the keys are question, depth, breadth, perSearch, maxSources, report, sites, excludeSites, recent, verify',
    });
    expect(entries[1]).toEqual({
      line: 2,
      question: 'Q2',
      error: '"depth" must be a whole number of at least 1, not 0',
    });
    expect(entries[2]).toMatchObject({ error: '"perSearch" must be a whole number from 1 to 10, not 11' });
    expect(entries[3]).toMatchObject({ error: '"report" must be true or false, not "yes"' });
    expect(entries[4]).toMatchObject({
      error: '"sites" must be a domain such as example.com, not "not a domain"',
    });
    expect(entries[5]).toMatchObject({
      error: expect.stringMatching(/^"recent" must be .*7d.*, not "soon"$/),
    });
    expect(entries[6]).toEqual({ line: 7, error: 'no "question" key' });
    expect(entries[7]).toEqual({ line: 8, error: '"question" must be a string' });
    expect(entries[8]).toEqual({ line: 9, error: 'the question is empty' });
    expect(entries[9]).toMatchObject({ line: 10, error: expect.stringMatching(/^not valid JSON: /) });
    // A line that starts like a JSON array is a plain question: only `{` lines are JSON.
    expect(entries[10]).toEqual({ line: 11, question: '["Q8"]', options: {} });
    expect(entries[11]).toEqual({ line: 12, question: 'Good one', options: {} });
    expect(entries[12]).toMatchObject({ line: 13, error: expect.stringMatching(/^"depth" must be/) });
    expect(entries[13]).toMatchObject({
      line: 14,
      error: expect.stringMatching(/^unknown key "constructor"/),
    });
  });

  it('refuses a plain line of nothing but control characters', () => {
    expect(parseBatch('\x1b\x07\x01')).toEqual([
      { line: 1, error: 'the question is empty once control characters are left out' },
    ]);
  });
});
