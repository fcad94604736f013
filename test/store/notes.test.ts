import { expect, it } from 'vitest';
import { addNote, listNotes } from '../../src/store/notes.js';
import { openStore } from '../../src/store/open.js';

it('lists notes newest first and finds them by full-text search', () => {
  const db = openStore(':memory:');
  const a = addNote(db, {
    content: 'Support agents may refund up to $200 without approval.',
    title: 'Refund limit',
    tags: ['policy'],
  });
  const b = addNote(db, { content: 'Travel must be booked through the portal.', tags: ['travel', 'travel'] });
  expect(b.tags).toEqual(['travel']);
  expect(listNotes(db).map((n) => n.id)).toEqual([b.id, a.id]);
  expect(listNotes(db, 'refunds approval').map((n) => n.id)).toEqual([a.id]);
  expect(listNotes(db, 'policy').map((n) => n.id)).toEqual([a.id]);
  // Words with none in common find nothing; punctuation is never an FTS syntax error.
  expect(listNotes(db, 'kangaroo')).toEqual([]);
  expect(listNotes(db, 'C++ "unbalanced')).toEqual([]);
  expect(() => addNote(db, { content: '   ' })).toThrow(/content/);
});
