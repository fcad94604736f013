// Local documents: every supported file under the content folder (Markdown, text, HTML, DOCX, PDF),
// indexed in the store (SQLite or PostgreSQL full-text search) as whole documents and as passages: what
// the rest of agent uses of this folder. Which folder: ../content-folder.ts.

export { PASSAGE_CHARS, type Passage, splitPassages } from './passages.js';
export { EXTENSIONS, MAX_FILE_BYTES, readDocumentFile, titleOf } from './read.js';
export { type RefreshStats, refreshIndex } from './refresh.js';
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
} from './search.js';
export {
  type DocumentSourceText,
  documentSource,
  type IndexedDocumentSource,
  textSource,
} from './source.js';
export type { SkippedFile } from './walk.js';
