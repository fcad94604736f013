import { inflateRawSync } from 'node:zlib';
import mammoth from 'mammoth';
import { FormatError } from './errors.js';
import { htmlToMarkdown } from './html/html-to-text.js';

// Word documents: mammoth turns the document's structure (heading styles, numbered and bulleted lists,
// tables, links, footnotes, bold and italic) into HTML, which is written as the same light Markdown as
// a web page. Nothing is dropped as boilerplate: every part of a document is content.

const ZIP = Buffer.from('PK\x03\x04', 'latin1');
const EMPTY_ZIP = Buffer.from('PK\x05\x06', 'latin1');
// Word 97–2003 files, and Office files saved with a password (which wraps the zip in this format too).
const OLE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

const notDocx = (why: string) => new FormatError(`not a Word document (.docx): ${why}`);

const OPTIONS = {
  // Images are not read at all: their bytes would only be encoded into the HTML and dropped again.
  convertImage: mammoth.images.imgElement(async () => ({ src: '' })),
  // A document may link images to other files (file:///…); never follow those links.
  externalFileAccess: false,
  // Word's Title style is the document's own heading (mammoth reads it as a plain paragraph). Code
  // and definition lists have no built-in Word structure: these are the paragraph styles Word, pandoc
  // and LibreOffice use for them, so code stays a fenced block and a term stays with its definition.
  styleMap: [
    "p[style-name='Title'] => h1:fresh",
    ...['Source Code', 'Code', 'Code Block', 'HTML Preformatted', 'Plain Text', 'Preformatted Text'].map(
      (name) => `p[style-name='${name}'] => pre:separator('\\n')`,
    ),
    "r[style-name='Verbatim Char'] => code",
    "p[style-name='Definition Term'] => dl > dt:fresh",
    "p[style-name='Definition'] => dl > dd:fresh",
    // Quotations: Word's Quote and Intense Quote styles, pandoc's and LibreOffice's Block Text/Quotations.
    ...['Quote', 'Intense Quote', 'Block Text', 'Quotations'].map(
      (name) => `p[style-name='${name}'] => blockquote > p:fresh`,
    ),
  ],
};

/** The first heading of Markdown text, outside code blocks. */
function firstHeading(markdown: string): string | undefined {
  let inCode = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) inCode = !inCode;
    else if (!inCode) {
      const m = /^#{1,6} (.+)$/.exec(line);
      if (m) return m[1]!.trim();
    }
  }
  return undefined;
}

/** One file of a zip archive (stored or deflated), or undefined when it is absent or unreadable. */
export function zipEntry(zip: Buffer, name: string): Buffer | undefined {
  try {
    // The central directory, found from its end record in the last 64 KiB (the comment's most).
    let end = -1;
    for (let i = zip.length - 22; i >= Math.max(0, zip.length - 65_557); i--)
      if (zip.readUInt32LE(i) === 0x06054b50) {
        end = i;
        break;
      }
    if (end < 0) return undefined;
    let at = zip.readUInt32LE(end + 16);
    for (let n = zip.readUInt16LE(end + 10); n > 0 && zip.readUInt32LE(at) === 0x02014b50; n--) {
      const nameLength = zip.readUInt16LE(at + 28);
      const entryName = zip.toString('utf8', at + 46, at + 46 + nameLength);
      if (entryName === name) {
        const method = zip.readUInt16LE(at + 10);
        const size = zip.readUInt32LE(at + 20);
        const local = zip.readUInt32LE(at + 42);
        const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
        const data = zip.subarray(start, start + size);
        return method === 0 ? data : method === 8 ? inflateRawSync(data) : undefined;
      }
      at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    }
  } catch {
    // A damaged archive has no readable properties; mammoth says what is wrong with it.
  }
  return undefined;
}

const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * The title in the document's properties (docProps/core.xml), which Word shows under File › Info.
 * Word's "Microsoft Word - name.doc" (set when a file was printed to PDF) is the file's name: not a title.
 */
export function coreTitle(data: Buffer): string | undefined {
  const xml = zipEntry(data, 'docProps/core.xml')?.toString('utf8');
  const raw = xml && /<dc:title>([\s\S]*?)<\/dc:title>/.exec(xml)?.[1];
  const title = raw
    ?.replace(/&(?:#x([\da-f]+)|#(\d+)|(\w+));/gi, (m, hex, dec, name) =>
      hex
        ? String.fromCodePoint(Number.parseInt(hex, 16))
        : dec
          ? String.fromCodePoint(Number(dec))
          : (XML_ENTITIES[name] ?? m),
    )
    .replace(/\s+/g, ' ')
    .trim();
  return title && !/^Microsoft Word - /i.test(title) ? title : undefined;
}

/**
 * A .docx file as light Markdown, with its title: the document properties' title, else its first
 * heading (or paragraph in Word's Title style); none when it has neither.
 * Throws FormatError when the bytes are not a Word document.
 */
export async function readDocx(data: Buffer): Promise<{ title?: string; text: string }> {
  if (data.subarray(0, OLE.length).equals(OLE))
    throw notDocx('this is an old-format Word file (.doc) or a password-protected document');
  if (!data.subarray(0, 4).equals(ZIP) && !data.subarray(0, 4).equals(EMPTY_ZIP))
    throw notDocx('the file is not a zip archive');
  let html: string;
  try {
    ({ value: html } = await mammoth.convertToHtml({ buffer: data }, OPTIONS));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const detail = message.replace(/\s+/g, ' ').trim();
    if (/main document part|body element/i.test(message))
      throw notDocx('the zip archive has no word/document.xml');
    if (/zip/i.test(message)) throw notDocx(`the zip archive is damaged (${detail})`);
    throw notDocx(`it cannot be read (${detail})`);
  }
  const text = htmlToMarkdown(html);
  return { title: coreTitle(data) ?? firstHeading(text), text };
}
