import { afterEach, describe, expect, it } from 'vitest';
import { storesUnderTest } from '../support/stores.js';

describe.each(storesUnderTest())('notes ($name)', (kind) => {
  afterEach(() => kind.close());

  it('lists notes newest first and finds them by full-text search', async () => {
    const store = await kind.open();
    const a = await store.notes.add({
      content: 'Support agents may refund up to $200 without approval.',
      title: 'Refund limit',
      tags: ['policy'],
    });
    const b = await store.notes.add({
      content: 'Travel must be booked through the portal.',
      tags: ['travel', 'travel'],
    });
    expect(b.tags).toEqual(['travel']);
    expect(b.user).toBe('tester');
    expect((await store.notes.list()).map((n) => n.id)).toEqual([b.id, a.id]);
    expect((await store.notes.list('refunds approval')).map((n) => n.id)).toEqual([a.id]);
    expect((await store.notes.list('policy')).map((n) => n.id)).toEqual([a.id]);
    // Words with none in common find nothing; punctuation is never an FTS syntax error.
    expect(await store.notes.list('kangaroo')).toEqual([]);
    expect(await store.notes.list('C++ "unbalanced')).toEqual([]);
    await expect(store.notes.add({ content: '   ' })).rejects.toThrow(/content/);
    expect(await store.notes.delete(a.id)).toBe(true);
    expect(await store.notes.delete(a.id)).toBe(false);
  });
});
