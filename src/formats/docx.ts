import mammoth from 'mammoth';
import { FormatError } from './errors.js';
import { htmlToMarkdown } from './html/html-to-text.js';

// Word documents: mammoth turns the document's structure (heading styles, numbered and bulleted lists,
// tables) into HTML, which is written as the same light Markdown as a web page. Nothing is dropped as
// boilerplate: every part of a document is content.

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

/**
 * A .docx file as light Markdown, with its first heading (or paragraph in Word's Title style) as the
 * title. mammoth does not read the document's core properties, so a document without either has none.
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
  return { title: firstHeading(text), text };
}
