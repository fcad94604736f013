import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { currentUser } from '../../src/store/user.js';
import { tempDb } from '../support/cli.js';
import { sqliteStore } from '../support/stores.js';

// A person deletes only their own notes and reports, on a SQLite file as on a team database: another's
// is refused in one line (exit 2); rows kept before people were recorded are anyone's.

describe('deleting another person’s rows', () => {
  it('is refused for a note or a report, and allowed for one’s own', async () => {
    const path = tempDb();
    const ann = await sqliteStore(path, 'ann');
    const note = (await ann.notes.add({ content: 'ann note' })).id;
    const run = await ann.runs.save({ question: 'Q', mode: 'model', answer: 'A', costUsd: 0, result: {} });
    await ann.close();
    const bob = await sqliteStore(path, 'bob');
    try {
      const failure = await bob.notes.delete(note).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(UsageError);
      expect((failure as Error).message).toBe(
        `Note #${note} is ann's: only its author can delete it (you are bob).`,
      );
      await expect(bob.runs.delete(run)).rejects.toThrow(`Report #${run} is ann's`);
      expect(await bob.notes.delete(9999)).toBe(false);
    } finally {
      await bob.close();
    }
    const again = await sqliteStore(path, 'ann');
    expect(await again.notes.delete(note)).toBe(true);
    expect(await again.runs.delete(run)).toBe(true);
    await again.close();
  });

  it('keeps a person’s label short and printable', () => {
    expect(currentUser({ AGENT_USER: `a\u0007b${'x'.repeat(200)}` })).toBe(`ab${'x'.repeat(62)}`);
    expect(currentUser({ AGENT_USER: '  alice  ' })).toBe('alice');
  });
});
