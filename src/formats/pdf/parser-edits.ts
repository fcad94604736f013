// Edits to pdf.js's parser that make reading text cheaper without changing any result; all are worth
// sending upstream. They apply to the pdf.js version package.json pins, and only where
// each finds its text exactly once; otherwise the parser loads as shipped (see load.ts).
// test/formats/pdf/stock.test.ts reads documents with and without them and expects the same lines.

export const EDITED_VERSION = '5.6.205';

interface Edit {
  find: string;
  replace: string;
}

const EDITS: Edit[] = [
  // Every glyph's position was two matrix products, each a new array (three arrays a glyph, asked twice a
  // glyph): the same products, term for term, into the one array the function already makes.
  {
    find: '      return Util.transform(textState.ctm, Util.transform(textState.textMatrix, tsm));',
    replace: `      const m = textState.textMatrix, c = textState.ctm;
      const a0 = m[0] * tsm[0] + m[2] * tsm[1], a1 = m[1] * tsm[0] + m[3] * tsm[1];
      const a2 = m[0] * tsm[2] + m[2] * tsm[3], a3 = m[1] * tsm[2] + m[3] * tsm[3];
      const a4 = m[0] * tsm[4] + m[2] * tsm[5] + m[4], a5 = m[1] * tsm[4] + m[3] * tsm[5] + m[5];
      tsm[0] = c[0] * a0 + c[2] * a1;
      tsm[1] = c[1] * a0 + c[3] * a1;
      tsm[2] = c[0] * a2 + c[2] * a3;
      tsm[3] = c[1] * a2 + c[3] * a3;
      tsm[4] = c[0] * a4 + c[2] * a5 + c[4];
      tsm[5] = c[1] * a4 + c[3] * a5 + c[5];
      return tsm;`,
  },
  // A text state's copy (made at every q operator and every change of font) had the state it copied as
  // its prototype, so that states chained ever deeper and no two had one shape: every read of a field was
  // a slow lookup. All of TextState's fields are its own (class fields), so a copy with TextState's
  // prototype has the same values.
  {
    find: 'const clone = Object.assign(Object.create(this), this);\n    clone.textMatrix = this.textMatrix.slice();',
    replace:
      'const clone = Object.assign(Object.create(Object.getPrototypeOf(this)), this);\n    clone.textMatrix = this.textMatrix.slice();',
  },
  // A compressed stream (every page's content) was inflated through a web DecompressionStream: in Node,
  // zlib on the thread pool behind two web streams and their promises, for streams of a few kilobytes,
  // the reading thread idle meanwhile. Node's zlib inflates it here at once, the same bytes (zlib format
  // both); where it fails (a damaged stream), pdf.js's own decoder takes over as it did when the
  // DecompressionStream failed. Without process.getBuiltinModule (Node before 20.16), as shipped.
  {
    find: `  async asyncGetBytes() {
    const {
      decompressed,
      compressed
    } = await this.asyncGetBytesFromDecompressionStream("deflate");`,
    replace: `  async asyncGetBytes() {
    const inflateSync = globalThis.process?.getBuiltinModule?.("node:zlib")?.inflateSync;
    const {
      decompressed,
      compressed
    } = inflateSync ? await (async () => {
      this.stream.reset();
      const bytes = this.stream.isAsync ? await this.stream.asyncGetBytes() : this.stream.getBytes();
      try {
        return { decompressed: new Uint8Array(inflateSync(bytes)), compressed: bytes };
      } catch {
        return { decompressed: null, compressed: bytes };
      }
    })() : await this.asyncGetBytesFromDecompressionStream("deflate");`,
  },
];

/** The parser's source with the edits made, or undefined when they do not fit this version or source. */
export function editParser(source: string, version: string): string | undefined {
  if (version !== EDITED_VERSION) return undefined;
  let out = source;
  for (const { find, replace } of EDITS) {
    const at = out.indexOf(find);
    if (at < 0 || out.includes(find, at + 1)) return undefined;
    out = out.slice(0, at) + replace + out.slice(at + find.length);
  }
  return out;
}
