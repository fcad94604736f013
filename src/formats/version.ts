/**
 * The version of what the readers in this folder produce. Raise it whenever a change alters the text or
 * title of a document already indexed: each content folder is then read again once.
 * 2: PDF text in reading order with outline or font-size headings; `#` escaped in converted text.
 * 3: local HTML read whole; links, footnotes, bold and italic kept in HTML and DOCX; DOCX titles from
 *    the document's properties.
 */
export const EXTRACTOR_VERSION = 3;
