// Full-text queries on PostgreSQL: the words of a question, each quoted, OR'ed as SQLite's side does,
// read by websearch_to_tsquery (which never fails on user text) with the English stemmer FTS5's porter
// tokenizer matches.

/** The words as websearch_to_tsquery text: "a" or "b" or "c"; '' when there are none. */
export const websearch = (words: string[], join: 'and' | 'or' = 'or'): string =>
  [...new Set(words)]
    .map((w) => w.replace(/["\s]/g, ''))
    .filter(Boolean)
    .map((w) => `"${w}"`)
    .join(join === 'or' ? ' or ' : ' ');

/** The words of a query as notes and reports search them: letters and digits, lower case. */
export const wordsOf = (query: string): string[] => query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/**
 * Ranking weights for {D, C, B, A}: a heading (A) word counts twice a text (B) word, as FTS5's bm25
 * column weights do on SQLite.
 */
export const WEIGHTS = '{0.05, 0.1, 0.5, 1.0}';
