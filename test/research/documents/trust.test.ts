import { mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { documentSource, getDocument, refreshIndex } from '../../../src/research/documents/index.js';
import { textBlocks } from '../../../src/research/documents/stored-text.js';
import { preparedFolder } from '../../support/pg-documents.js';
import { storesUnderTest } from '../../support/stores.js';

// On a team database any member can rewrite the index's stored text of a shared document. The file is
// the truth where it can be read: a planted "$900" never reaches a source, an answer or the grounding
// check while the file says "$200". (A personal SQLite file is written only by its owner's agent.)

const REFUNDS = '# Refunds\n\nA support agent can refund up to $200 per order without approval.\n';
const PLANTED = REFUNDS.replace('$200', '$900');

for (const under of storesUnderTest()) {
  describe(`a document's stored text, on ${under.name}`, () => {
    afterAll(() => under.close());

    it(
      under.name === 'postgres'
        ? 'is replaced by its file when they differ'
        : 'is trusted as the owner indexed it',
      async () => {
        const dir = mkdtempSync(join(tmpdir(), 'agent-trust-'));
        writeFileSync(join(dir, 'refunds.md'), REFUNDS);
        const store = await under.open();
        await refreshIndex(store, dir);
        // Another member rewrites the stored text (the index tables are the team's to write).
        const [doc] = await preparedFolder(dir);
        const planted = { ...doc!, chars: PLANTED.length, blocks: textBlocks(PLANTED, [0]) };
        const id = (await store.index.find(dir, 'refunds'))!.id;
        await store.index.write(dir, [planted], [id]);
        expect(await store.index.text((await store.index.find(dir, 'refunds'))!.id)).toContain('$900');

        const source = await documentSource(store, dir, 'refunds', ['refund limit'], 24_000);
        const body = (await getDocument(store, dir, 'refunds'))?.body;
        if (under.name === 'postgres') {
          expect(source?.text).toContain('$200');
          expect(source?.text).not.toContain('$900');
          expect(body).toContain('$200');
          expect(body).not.toContain('$900');
          // And the index says what the file says again, for everyone.
          const again = (await store.index.find(dir, 'refunds'))!;
          expect(await store.index.text(again.id)).not.toContain('$900');
          expect(await store.index.text(again.id)).toContain('$200');
        } else {
          expect(source?.text).toContain('$900');
        }
      },
    );

    it.runIf(under.name === 'postgres')(
      'is compared again once its file changes, even to the same length, in the same process',
      async () => {
        const dir = mkdtempSync(join(tmpdir(), 'agent-trust-'));
        const file = join(dir, 'refunds.md');
        writeFileSync(file, REFUNDS);
        const store = await under.open();
        await refreshIndex(store, dir);
        expect((await getDocument(store, dir, 'refunds'))?.body).toContain('$200');
        // The policy changes: same length, a later time.
        writeFileSync(file, REFUNDS.replace('$200', '$300'));
        utimesSync(file, new Date(), new Date(Date.now() + 5000));
        await refreshIndex(store, dir);
        const body = (await getDocument(store, dir, 'refunds'))?.body;
        expect(body).toContain('$300');
        expect(body).not.toContain('$200');
      },
    );
  });
}
