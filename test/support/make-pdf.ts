// Real, small PDFs built in memory for tests: hand-written objects with correct xref offsets, so pdf.js
// parses them exactly as it parses a PDF from the wild (no reconstruction fallback).

/** A run of text placed by hand: where it starts, its size, letter spacing (Tc), drawn in a ligature font. */
export interface PdfRun {
  text: string;
  /** Left edge; 72 unless given. */
  x?: number;
  /** Baseline; the next line's place (16 points below the last) unless given. */
  y?: number;
  /** Font size, 12 unless given. */
  size?: number;
  /** Extra space after every character (the Tc operator), as letter-spaced titles are set. */
  charSpacing?: number;
  /** Drawn in a font whose bytes 1 and 2 are the glyphs `fi` and `fl`, so ﬁ and ﬂ can be written. */
  ligatures?: boolean;
  /**
   * Drawn as glyph codes without a Unicode mapping, as fonts subset without a ToUnicode map are: each
   * character becomes a control byte (1–31) whose glyph has a made-up name, so a reader gets junk.
   */
  undecodable?: boolean;
  /** Drawn in Helvetica-Bold. */
  bold?: boolean;
  /** Drawn in Courier, a monospaced font (code). */
  mono?: boolean;
}

/**
 * A line drawn on a page: a filled box `width` × `height` from (x, y), as TeX draws its rules, or with
 * `stroke`, a 0.5-point line from (x, y) to (x + width, y + height), as word processors draw borders.
 */
export interface PdfRule {
  x: number;
  y: number;
  width: number;
  height: number;
  stroke?: boolean;
}

export interface OutlineEntry {
  title: string;
  /** 1-based page the bookmark opens. */
  page: number;
  children?: OutlineEntry[];
}

export interface PdfSpec {
  /**
   * Each page is a list of lines, drawn in this order; an empty line leaves a blank line's space (a
   * paragraph break). A run placed by hand may be drawn anywhere, so drawing order can differ from reading order.
   */
  pages: (string | PdfRun)[][];
  /** Rules drawn on each page (by index), after its text. */
  rules?: PdfRule[][];
  /** Bookmarks (the document outline), nested. */
  outline?: OutlineEntry[];
  /** The document information dictionary's Title. */
  title?: string;
  /** A title in XMP metadata (dc:title), the newer place for it. */
  xmpTitle?: string;
  /** Pages drawn as a picture (an inline image and a filled box) with no text operators at all. */
  imageOnly?: boolean;
  /** An /Encrypt dictionary whose user password is not empty, so a reader has to ask for one. */
  encrypted?: boolean;
  /** About this many bytes of comment lines after the header: a large file without more pages. */
  padBytes?: number;
}

// WinAnsiEncoding bytes for the few characters outside Latin-1 that tests are likely to use.
const WIN_ANSI: Record<string, number> = {
  '€': 0x80,
  '…': 0x85,
  '‘': 0x91,
  '’': 0x92,
  '“': 0x93,
  '”': 0x94,
  '•': 0x95,
  '–': 0x96,
  '—': 0x97,
};

/** A PDF literal string: the characters as WinAnsi bytes, with delimiters and non-ASCII escaped. */
export function pdfString(text: string, extra: Record<string, number> = {}): string {
  let out = '(';
  for (const ch of text) {
    const code = extra[ch] ?? WIN_ANSI[ch] ?? ch.codePointAt(0)!;
    if (code > 0xff) throw new Error(`makePdf: "${ch}" has no WinAnsiEncoding byte`);
    if (ch === '(' || ch === ')' || ch === '\\') out += `\\${ch}`;
    else if (code < 0x20 || code > 0x7e) out += `\\${code.toString(8).padStart(3, '0')}`;
    else out += ch;
  }
  return `${out})`;
}

const FONT_SIZE = 12;
const LEADING = 16;

const LIGATURES = { ﬁ: 1, ﬂ: 2 };

function textStream(lines: (string | PdfRun)[]): string {
  const ops: string[] = [];
  let y = 750;
  for (const line of lines) {
    const run = typeof line === 'string' ? { text: line } : line;
    const at = run.y ?? y;
    // One text object per line, each placed absolutely, as many PDF producers write them.
    if (run.text) {
      const font = run.undecodable ? 'F3' : run.ligatures ? 'F2' : run.bold ? 'F4' : run.mono ? 'F5' : 'F1';
      // Tc is graphics state, kept across text objects: every line sets its own.
      const spacing = `${run.charSpacing ?? 0} Tc `;
      const text = run.undecodable
        ? pdfString([...run.text].map((c) => String.fromCharCode(1 + (c.charCodeAt(0) % 31))).join(''))
        : pdfString(run.text, run.ligatures ? LIGATURES : {});
      ops.push(`BT /${font} ${run.size ?? FONT_SIZE} Tf ${spacing}${run.x ?? 72} ${at} Td ${text} Tj ET`);
    }
    y = at - LEADING;
  }
  return ops.join('\n');
}

/** Outline item objects from `first` on (numbered from 1), in the order they are pushed. */
function outlineObjects(
  entries: OutlineEntry[],
  parent: number,
  first: number,
  pageRef: (n: number) => string,
) {
  const objects: string[] = [];
  const ids = entries.map((_, i) => first + i);
  let next = first + entries.length;
  const bodies: string[] = [];
  for (const [i, entry] of entries.entries()) {
    const kids = entry.children?.length ? outlineObjects(entry.children, ids[i]!, next, pageRef) : undefined;
    const links = [
      i > 0 ? `/Prev ${ids[i - 1]} 0 R` : '',
      i < entries.length - 1 ? `/Next ${ids[i + 1]} 0 R` : '',
      kids
        ? `/First ${next} 0 R /Last ${next + entry.children!.length - 1} 0 R /Count ${entry.children!.length}`
        : '',
    ].join(' ');
    bodies.push(
      `<< /Title ${pdfString(entry.title)} /Parent ${parent} 0 R /Dest [${pageRef(entry.page)} /XYZ 0 792 0] ${links} >>`,
    );
    if (kids) {
      objects.push(...kids);
      next += kids.length;
    }
  }
  return [...bodies, ...objects];
}

// A 2×2 grey "scan" as an inline image, plus a filled box: pixels, never text.
const IMAGE_STREAM =
  'q 0.5 g 72 500 300 200 re f Q\nq 300 0 0 200 72 500 cm\nBI /W 2 /H 2 /CS /G /BPC 8 ID \x80\x40\x40\x80\nEI\nQ';

/** Assembles numbered objects into a PDF file with an exact cross-reference table. */
function assemble(objects: string[], trailer: string, padBytes = 0): Buffer {
  let body = '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n';
  const comment = `%${'x'.repeat(78)}\n`;
  body += comment.repeat(Math.ceil(padBytes / comment.length));
  const offsets: number[] = [];
  for (const [i, object] of objects.entries()) {
    offsets.push(Buffer.byteLength(body, 'latin1'));
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
  }
  const xref = Buffer.byteLength(body, 'latin1');
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} ${trailer} >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

const ruleOps = (rules: PdfRule[] = []) =>
  rules.map((r) =>
    r.stroke
      ? `q 0.5 w ${r.x} ${r.y} m ${r.x + r.width} ${r.y + r.height} l S Q`
      : `q ${r.x} ${r.y} ${r.width} ${r.height} re f Q`,
  );

const stream = (content: string) =>
  `<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`;

/** Builds a PDF whose pages hold the given lines in Helvetica, one text object per line. */
export function makePdf(spec: PdfSpec): Buffer {
  // 1 catalog, 2 page tree, 3 to 7 fonts, then a page and its content stream per page, then Info, XMP and Encrypt.
  const objects: string[] = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /BaseEncoding /WinAnsiEncoding /Differences [1 /fi /fl] >> >>',
    `<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Differences [1 ${Array.from({ length: 31 }, (_, i) => `/glyph.x${i + 1}`).join(' ')}] >> >>`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>',
  ];
  const kids: string[] = [];
  for (const [index, lines] of spec.pages.entries()) {
    const pageNumber = objects.length + 1;
    kids.push(`${pageNumber} 0 R`);
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R /F2 4 0 R /F3 5 0 R /F4 6 0 R /F5 7 0 R >> >> /Contents ${pageNumber + 1} 0 R >>`,
    );
    const content = spec.imageOnly ? IMAGE_STREAM : textStream(lines);
    objects.push(stream([content, ...ruleOps(spec.rules?.[index])].join('\n')));
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${kids.length} >>`;
  if (spec.outline?.length) {
    const root = objects.length + 1;
    const items = outlineObjects(spec.outline, root, root + 1, (n) => kids[n - 1]!);
    objects.push(
      `<< /Type /Outlines /First ${root + 1} 0 R /Last ${root + spec.outline.length} 0 R >>`,
      ...items,
    );
    objects[0] = `<< /Type /Catalog /Pages 2 0 R /Outlines ${root} 0 R >>`;
  }
  let trailer = '/Root 1 0 R';
  if (spec.title !== undefined) {
    objects.push(`<< /Title ${pdfString(spec.title)} /Producer (make-pdf test helper) >>`);
    trailer += ` /Info ${objects.length} 0 R`;
  }
  if (spec.xmpTitle !== undefined) {
    const escaped = spec.xmpTitle.replace(/&/g, '&amp;').replace(/</g, '&lt;');
    const xml =
      '<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">' +
      '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" ' +
      `xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title><rdf:Alt><rdf:li xml:lang="x-default">${escaped}` +
      '</rdf:li></rdf:Alt></dc:title></rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>';
    // XMP is UTF-8; the file is assembled as Latin-1 text, one character per byte.
    const bytes = Buffer.from(xml, 'utf8').toString('latin1');
    objects.push(stream(bytes).replace('<< ', '<< /Type /Metadata /Subtype /XML '));
    objects[0] = objects[0]!.replace(/ >>$/, ` /Metadata ${objects.length} 0 R >>`);
  }
  if (spec.encrypted) {
    // Standard security handler, RC4 40-bit. /U is not what the empty password yields, so pdf.js stops
    // and asks for the password, as it does for any document with a user password.
    const o = 'a1'.repeat(32);
    const u = '5e'.repeat(32);
    objects.push(`<< /Filter /Standard /V 1 /R 2 /Length 40 /P -44 /O <${o}> /U <${u}> >>`);
    trailer += ` /Encrypt ${objects.length} 0 R /ID [<0123456789abcdef0123456789abcdef> <0123456789abcdef0123456789abcdef>]`;
  }
  return assemble(objects, trailer, spec.padBytes);
}

/** The first `fraction` of a PDF's bytes: a download cut short. */
export function truncatePdf(pdf: Buffer, fraction = 0.5): Buffer {
  return pdf.subarray(0, Math.floor(pdf.length * fraction));
}
