import { opendirSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../errors.js';
import { fileError } from './documents/walk.js';

// Local documents: every supported file under the content folder (Markdown, text, HTML, DOCX, PDF),
// indexed in the store (SQLite or PostgreSQL full-text search) as whole documents and as passages. The
// parts live in documents/.

export { PASSAGE_CHARS, type Passage, splitPassages } from './documents/passages.js';
export { EXTENSIONS, MAX_FILE_BYTES, readDocumentFile, titleOf } from './documents/read.js';
export { type RefreshStats, refreshIndex } from './documents/refresh.js';
export {
  type Document,
  type DocumentInfo,
  getDocument,
  listDocuments,
  type PassageHit,
  queryTerms,
  rankPassages,
  type SearchHit,
  searchDocuments,
  searchPassages,
} from './documents/search.js';
export {
  type DocumentSourceText,
  documentSource,
  type IndexedDocumentSource,
  textSource,
} from './documents/source.js';
export type { SkippedFile } from './documents/walk.js';

/**
 * `--content`, else `AGENT_CONTENT_DIR`, else the sample documents shipped in the package. A folder that
 * is missing, not a folder or cannot be read is a configuration error (exit 2) naming it.
 */
export function contentDirectory(flag?: string, env: NodeJS.ProcessEnv = process.env): string {
  const dir = flag || env.AGENT_CONTENT_DIR || fileURLToPath(new URL('../../content', import.meta.url));
  const abs = resolve(dir);
  const refuse = (problem: string) =>
    new ConfigError(`The content folder ${abs} ${problem}. Point --content or AGENT_CONTENT_DIR at one.`);
  let isFolder: boolean;
  try {
    isFolder = statSync(abs).isDirectory();
  } catch (error) {
    throw refuse(
      (error as NodeJS.ErrnoException).code === 'ENOENT'
        ? 'does not exist'
        : `cannot be reached: ${fileError(error)}`,
    );
  }
  if (!isFolder) throw refuse('is not a folder');
  try {
    // Opening it is the real test: permission bits, ACLs and mounts all have their say.
    opendirSync(abs).closeSync();
  } catch (error) {
    throw refuse(`cannot be read: ${fileError(error)}`);
  }
  return abs;
}
