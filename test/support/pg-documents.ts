import { prepareFile } from '../../src/research/documents/prepare.js';
import { listContentFiles } from '../../src/research/documents/walk.js';
import type { DocumentWrite } from '../../src/store/store.js';

/** The files of a content folder prepared as the indexer prepares them, ready for IndexStore.write. */
export async function preparedFolder(root: string): Promise<DocumentWrite[]> {
  const out: DocumentWrite[] = [];
  for (const file of listContentFiles(root).files) {
    const p = await prepareFile(file.path);
    const spans = typeof p.spans === 'string' ? JSON.parse(p.spans) : p.spans;
    const texts = typeof p.texts === 'string' ? JSON.parse(p.texts) : p.texts;
    out.push({
      slug: file.slug,
      path: file.path,
      title: p.title,
      mtimeMs: file.mtimeMs,
      size: file.size,
      chars: p.chars,
      blocks: p.blocks,
      spans,
      texts,
    });
  }
  return out;
}
