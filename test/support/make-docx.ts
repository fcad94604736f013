import { crc32, deflateRawSync } from 'node:zlib';

// Real, small .docx files built in memory for tests: the WordprocessingML parts Word itself writes for
// headings, paragraphs, runs (bold, italic, hyperlinks, footnotes), lists and tables with merged cells
// (document, styles, numbering, footnotes, core properties, relationships, content types), in a stored
// (uncompressed) zip written by hand, so mammoth
// reads them exactly as it reads a document from the wild.

/** A piece of a paragraph: plain text, bold or italic text, a hyperlink, or a footnote's reference. */
export type DocxRun =
  | string
  | { text: string; bold?: boolean; italic?: boolean }
  | { link: string; url: string }
  | { footnote: string };

/** A table cell: its text, or a cell spanning `span` grid columns, or one merged with the cell above. */
export type DocxCell = string | { text: string; span?: number } | { mergedAbove: true };

export type DocxBlock =
  /** A paragraph in Word's built-in heading style `Heading<level>`. */
  | { heading: string; level?: 1 | 2 | 3 }
  /** A paragraph in Word's built-in Title style. */
  | { title: string }
  | { paragraph: string }
  /** A paragraph of runs; `style` names a paragraph style by id (Quote, IntenseQuote…). */
  | { runs: DocxRun[]; style?: string }
  /** A bulleted list, one paragraph per item; `[text, [nested items]]` nests one level deeper. */
  | { bullets: (string | [string, string[]])[] }
  /** A numbered list, one paragraph per item; `[text, [nested items]]` nests one level deeper. */
  | { numbered: (string | [string, string[]])[] }
  /** A code block: one paragraph per line in the Source Code style (as pandoc and many templates write it). */
  | { code: string[] }
  /** A definition list: term and definition paragraphs in the Definition Term and Definition styles. */
  | { definitions: [string, string][] }
  /** Rows of cells; the first row is marked as the table's header row (repeated on each page). */
  | { table: DocxCell[][] };

/** Zip entries, path → content. Exposed so tests can build broken or partial documents. */
export type ZipEntries = Record<string, string | Buffer>;

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG_R = 'http://schemas.openxmlformats.org/package/2006/relationships';
const DOC_TYPE = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument';
const HYPERLINK_TYPE = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink';
const FOOTNOTES_TYPE = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/footnotes';
const CORE_TYPE = 'http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties';
const NUMBERING_TYPE = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering';
const STYLES_TYPE = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles';
const CT = 'application/vnd.openxmlformats-officedocument.wordprocessingml';

const BULLETS = 1;
const DECIMAL = 2;

const escapeXml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const textRun = (text: string, props = '') =>
  `<w:r>${props ? `<w:rPr>${props}</w:rPr>` : ''}<w:t xml:space="preserve">${escapeXml(text)}</w:t></w:r>`;

function paragraph(text: string, props = ''): string {
  return `<w:p>${props ? `<w:pPr>${props}</w:pPr>` : ''}${text ? textRun(text) : ''}</w:p>`;
}

/** What runs need outside document.xml: hyperlink targets and footnote texts, numbered as written. */
interface Parts {
  links: string[];
  footnotes: string[];
}

function runXml(run: DocxRun, parts: Parts): string {
  if (typeof run === 'string') return textRun(run);
  if ('link' in run) {
    parts.links.push(run.url);
    return `<w:hyperlink r:id="rIdLink${parts.links.length}">${textRun(run.link, '<w:rStyle w:val="Hyperlink"/>')}</w:hyperlink>`;
  }
  if ('footnote' in run) {
    parts.footnotes.push(run.footnote);
    // Word numbers footnotes from 1; ids -1 and 0 are its separators.
    return `<w:r><w:rPr><w:vertAlign w:val="superscript"/></w:rPr><w:footnoteReference w:id="${parts.footnotes.length}"/></w:r>`;
  }
  return textRun(run.text, `${run.bold ? '<w:b/>' : ''}${run.italic ? '<w:i/>' : ''}`);
}

function cellXml(cell: DocxCell): string {
  const width = '<w:tcW w:w="2400" w:type="dxa"/>';
  if (typeof cell === 'string') return `<w:tc><w:tcPr>${width}</w:tcPr>${paragraph(cell)}</w:tc>`;
  if ('mergedAbove' in cell) return `<w:tc><w:tcPr>${width}<w:vMerge/></w:tcPr>${paragraph('')}</w:tc>`;
  const span = cell.span ? `<w:gridSpan w:val="${cell.span}"/>` : '';
  // A cell that others merge into starts the vertical merge; Word marks it so whether or not one does.
  return `<w:tc><w:tcPr>${width}${span}<w:vMerge w:val="restart"/></w:tcPr>${paragraph(cell.text)}</w:tc>`;
}

const listProps = (numId: number, level: number) =>
  `<w:pStyle w:val="ListParagraph"/><w:numPr><w:ilvl w:val="${level}"/><w:numId w:val="${numId}"/></w:numPr>`;

function items(list: (string | [string, string[]])[], numId: number): string {
  return list
    .map((item) =>
      typeof item === 'string'
        ? paragraph(item, listProps(numId, 0))
        : paragraph(item[0], listProps(numId, 0)) +
          item[1].map((t) => paragraph(t, listProps(numId, 1))).join(''),
    )
    .join('');
}

function blockXml(block: DocxBlock, parts: Parts): string {
  if ('runs' in block) {
    const props = block.style ? `<w:pPr><w:pStyle w:val="${block.style}"/></w:pPr>` : '';
    return `<w:p>${props}${block.runs.map((r) => runXml(r, parts)).join('')}</w:p>`;
  }
  if ('heading' in block) return paragraph(block.heading, `<w:pStyle w:val="Heading${block.level ?? 1}"/>`);
  if ('title' in block) return paragraph(block.title, '<w:pStyle w:val="Title"/>');
  if ('paragraph' in block) return paragraph(block.paragraph);
  if ('code' in block)
    return block.code.map((line) => paragraph(line, '<w:pStyle w:val="SourceCode"/>')).join('');
  if ('definitions' in block)
    return block.definitions
      .map(
        ([term, definition]) =>
          paragraph(term, '<w:pStyle w:val="DefinitionTerm"/>') +
          paragraph(definition, '<w:pStyle w:val="Definition"/>'),
      )
      .join('');
  if ('numbered' in block) return items(block.numbered, DECIMAL);
  if ('bullets' in block) return items(block.bullets, BULLETS);
  const rows = block.table.map((cells, i) => {
    const header = i === 0 ? '<w:trPr><w:tblHeader/></w:trPr>' : '';
    return `<w:tr>${header}${cells.map(cellXml).join('')}</w:tr>`;
  });
  return `<w:tbl><w:tblPr><w:tblStyle w:val="TableGrid"/></w:tblPr>${rows.join('')}</w:tbl>`;
}

function level(ilvl: number, format: 'bullet' | 'decimal'): string {
  const text = format === 'bullet' ? '•' : `%${ilvl + 1}.`;
  return `<w:lvl w:ilvl="${ilvl}"><w:start w:val="1"/><w:numFmt w:val="${format}"/><w:lvlText w:val="${text}"/></w:lvl>`;
}

const NUMBERING = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:numbering xmlns:w="${W}">
<w:abstractNum w:abstractNumId="0">${level(0, 'bullet')}${level(1, 'bullet')}</w:abstractNum>
<w:abstractNum w:abstractNumId="1">${level(0, 'decimal')}${level(1, 'decimal')}</w:abstractNum>
<w:num w:numId="${BULLETS}"><w:abstractNumId w:val="0"/></w:num>
<w:num w:numId="${DECIMAL}"><w:abstractNumId w:val="1"/></w:num>
</w:numbering>`;

const style = (type: string, id: string, name: string) =>
  `<w:style w:type="${type}" w:styleId="${id}"><w:name w:val="${name}"/></w:style>`;

// Word's own ids and names for the styles used here (mammoth maps headings by either).
const STYLES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:styles xmlns:w="${W}">${style('paragraph', 'Normal', 'Normal')}${style('paragraph', 'Title', 'Title')}${[
  1, 2, 3,
]
  .map((n) => style('paragraph', `Heading${n}`, `heading ${n}`))
  .join(
    '',
  )}${style('paragraph', 'Quote', 'Quote')}${style('paragraph', 'ListParagraph', 'List Paragraph')}${style('paragraph', 'SourceCode', 'Source Code')}${style('paragraph', 'DefinitionTerm', 'Definition Term')}${style('paragraph', 'Definition', 'Definition')}${style('table', 'TableGrid', 'Table Grid')}</w:styles>`;

const FOOTNOTES = (notes: string[]) => `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:footnotes xmlns:w="${W}" xmlns:r="${R}">\
<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>\
<w:footnote w:type="continuationSeparator" w:id="0"><w:p><w:r><w:continuationSeparator/></w:r></w:p></w:footnote>\
${notes.map((n, i) => `<w:footnote w:id="${i + 1}"><w:p><w:r><w:footnoteRef/></w:r>${textRun(` ${n}`)}</w:p></w:footnote>`).join('')}</w:footnotes>`;

const CORE = (title: string) => `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" \
xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>${escapeXml(title)}</dc:title></cp:coreProperties>`;

/** The parts of a minimal Word document holding `blocks`; `title` goes in its document properties. */
export function docxEntries(blocks: DocxBlock[], options: { title?: string } = {}): ZipEntries {
  const parts: Parts = { links: [], footnotes: [] };
  const body = blocks.map((b) => blockXml(b, parts)).join('');
  const links = parts.links
    .map(
      (url, i) =>
        `<Relationship Id="rIdLink${i + 1}" Type="${HYPERLINK_TYPE}" Target="${escapeXml(url)}" TargetMode="External"/>`,
    )
    .join('');
  const footnotes = parts.footnotes.length
    ? `<Relationship Id="rId3" Type="${FOOTNOTES_TYPE}" Target="footnotes.xml"/>`
    : '';
  const core =
    options.title === undefined
      ? ''
      : `<Relationship Id="rId2" Type="${CORE_TYPE}" Target="docProps/core.xml"/>`;
  return {
    '[Content_Types].xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/word/document.xml" ContentType="${CT}.document.main+xml"/>
<Override PartName="/word/numbering.xml" ContentType="${CT}.numbering+xml"/>
<Override PartName="/word/styles.xml" ContentType="${CT}.styles+xml"/>
<Override PartName="/word/footnotes.xml" ContentType="${CT}.footnotes+xml"/>
<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>
</Types>`,
    '_rels/.rels': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="${PKG_R}"><Relationship Id="rId1" Type="${DOC_TYPE}" Target="word/document.xml"/>${core}</Relationships>`,
    'word/document.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="${W}" xmlns:r="${R}"><w:body>${body}<w:sectPr/></w:body></w:document>`,
    'word/_rels/document.xml.rels': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="${PKG_R}"><Relationship Id="rId1" Type="${NUMBERING_TYPE}" Target="numbering.xml"/>\
<Relationship Id="rId2" Type="${STYLES_TYPE}" Target="styles.xml"/>${footnotes}${links}</Relationships>`,
    'word/numbering.xml': NUMBERING,
    'word/styles.xml': STYLES,
    ...(parts.footnotes.length ? { 'word/footnotes.xml': FOOTNOTES(parts.footnotes) } : {}),
    ...(options.title === undefined ? {} : { 'docProps/core.xml': CORE(options.title) }),
  };
}

/**
 * A zip archive with every entry stored uncompressed (method 0), as the zip format allows, or deflated
 * (method 8) as Word writes them.
 */
export function makeZip(entries: ZipEntries, options: { deflate?: boolean } = {}): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [path, content] of Object.entries(entries)) {
    const name = Buffer.from(path, 'utf8');
    const raw = Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8');
    const crc = crc32(raw);
    const data = options.deflate ? deflateRawSync(raw) : raw;
    const method = options.deflate ? 8 : 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0); // local file header signature
    local.writeUInt16LE(20, 4); // version needed to extract (2.0)
    local.writeUInt16LE(0x0800, 6); // flags: names are UTF-8
    local.writeUInt16LE(method, 8); // method: stored or deflated
    local.writeUInt32LE(0, 10); // DOS time and date: 00:00, no date
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18); // compressed size
    local.writeUInt32LE(raw.length, 22); // uncompressed size
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28); // extra field length
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0); // central directory header signature
    central.writeUInt16LE(20, 4); // version made by
    central.writeUInt16LE(20, 6); // version needed
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(0, 12);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(raw.length, 24);
    central.writeUInt16LE(name.length, 28);
    // extra, comment, disk number, internal and external attributes stay 0
    central.writeUInt32LE(offset, 42); // where the local header starts
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0); // end of central directory signature
  const count = Object.keys(entries).length;
  end.writeUInt16LE(count, 8); // entries on this disk
  end.writeUInt16LE(count, 10); // entries in all
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16); // where the central directory starts
  return Buffer.concat([...locals, directory, end]);
}

/** A real .docx holding the blocks, in order. */
export function makeDocx(blocks: DocxBlock[], options: { title?: string; deflate?: boolean } = {}): Buffer {
  return makeZip(docxEntries(blocks, options), options);
}
