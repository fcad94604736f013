import { passageHash } from './embedding-text.js';
import { type Passage, splitPassages } from './passages.js';
import { fileTitle, readDocumentFile } from './read.js';
import { type TextBlock, textBlocks } from './stored-text.js';

// Everything the indexer does to a file before writing it: read it as text, cut it into passages,
// compress the text and encode the rows. None of it touches the database, so it runs in a worker thread
// beside the writes when there is much to read (see readers.ts).

export interface PreparedFile {
  title: string;
  /** The text as stored: compressed blocks. */
  blocks: TextBlock[];
  /** The passages' spans, [heading path, start, end, hash] each, as the index's writer takes them. */
  spans: [string, number, number, string][];
  /** The passages' texts, [text, heading path] each, for the full-text index. */
  texts: [string, string][];
  passages: number;
  /** The text's length in characters. */
  chars: number;
}

/** Throws FormatError (with the reason) when the file cannot be used. */
export async function prepareFile(
  path: string,
  options: { size?: number; signal?: AbortSignal } = {},
): Promise<PreparedFile> {
  const { title, text } = await readDocumentFile(path, options);
  const passages: Passage[] = splitPassages(text);
  return {
    title: title ?? fileTitle(path),
    blocks: textBlocks(
      text,
      passages.map((p) => p.start),
    ),
    spans: passages.map((p): [string, number, number, string] => [
      p.headingPath,
      p.start,
      p.end,
      passageHash(p.headingPath, p.text),
    ]),
    texts: passages.map((p): [string, string] => [p.text, p.headingPath]),
    passages: passages.length,
    chars: text.length,
  };
}
