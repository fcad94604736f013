/**
 * Words as an FTS5 query: each one quoted, so user text can never be read as FTS5 syntax, then joined.
 * '' when there are no words.
 */
export function ftsQuery(words: string[], join: 'AND' | 'OR'): string {
  return [...new Set(words)].map((w) => `"${w.replace(/"/g, '')}"`).join(` ${join} `);
}
