import { expect, it } from 'vitest';
import { recent } from '../../src/store/recent.js';

// What a span reader keeps: the most recently used blocks, made again once they have been let go.

it('keeps the most recently used values, makes each once while kept, and lets the oldest go', () => {
  const made: string[] = [];
  const map = new Map<string, string>();
  const get = (key: string) =>
    recent(map, key, 3, () => {
      made.push(key);
      return key.toUpperCase();
    });
  expect(['a', 'b', 'c', 'a', 'b'].map(get)).toEqual(['A', 'B', 'C', 'A', 'B']);
  expect(made).toEqual(['a', 'b', 'c']);
  get('d'); // c was used longest ago: it goes, a and b stay
  expect([...map.keys()].sort()).toEqual(['a', 'b', 'd']);
  get('a');
  get('c');
  expect(made).toEqual(['a', 'b', 'c', 'd', 'c']);
  expect(map.size).toBe(3);
});
