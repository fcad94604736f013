import { createHash } from 'node:crypto';

// What a passage is embedded as: its heading path, then its text ("Expenses > Cycling" says what a
// passage about "the scheme" is about). The hash of that text keys the passage's vectors, so a passage
// whose heading or text changes is embedded again and one that does not never is.

export const embeddingText = (headingPath: string, text: string): string =>
  headingPath ? `${headingPath}\n\n${text}` : text;

/** 128 bits of SHA-256, as hex: unique enough for any folder, half the room of the whole digest. */
export const passageHash = (headingPath: string, text: string): string =>
  createHash('sha256').update(embeddingText(headingPath, text)).digest('hex').slice(0, 32);
