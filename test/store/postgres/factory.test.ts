import { afterAll, describe, expect, it } from 'vitest';
import { postgresStoreUnderTest } from '../../support/pg.js';

// The factory the shared store tests (test/support/stores.ts) use for PostgreSQL: each open is a store on
// an empty, migrated database.

const factory = postgresStoreUnderTest();
afterAll(() => factory.close());

describe('postgresStoreUnderTest', () => {
  it('opens a store on an empty database each time', async () => {
    const first = await factory.open();
    expect(first.kind).toBe('postgres');
    await first.notes.add({ content: 'left behind' });
    await factory.close();
    const second = await factory.open();
    expect(await second.notes.list()).toEqual([]);
    expect((await second.status()).schemaVersion).toBe(21);
  });
});
