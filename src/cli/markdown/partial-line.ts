// The line a reply is in the middle of, shown as it streams (a local model may take a minute over one
// paragraph), then erased when the line is complete and the Markdown renderer draws it for good. It is
// plain text, left to the terminal to wrap; its rows are counted to erase them. Without a known width
// nothing is shown: the rows could not be counted.

const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]/u;
/** Combining marks, zero-width spaces and joiners, variation selectors. */
const zero = (c: number) =>
  (c >= 0x300 && c <= 0x36f) || (c >= 0x200b && c <= 0x200f) || (c >= 0xfe00 && c <= 0xfe0f);

/** The terminal cells a plain string takes: wide East Asian characters and emoji two, marks none. */
export function cells(s: string): number {
  let n = 0;
  for (const ch of s) n += WIDE.test(ch) ? 2 : zero(ch.codePointAt(0)!) ? 0 : 1;
  return n;
}

export class PartialLine {
  private shown = '';
  private rows = 0;

  constructor(private readonly out: NodeJS.WriteStream) {}

  /** Shows `text` (the line so far) in place of what was shown: only the new end, when it extends it. */
  show(text: string): void {
    const columns = this.out.columns;
    if (!columns) return;
    const plain = text.replace(/\t/g, '    ');
    if (plain === this.shown) return;
    if (this.shown && plain.startsWith(this.shown)) this.out.write(plain.slice(this.shown.length));
    else {
      this.clear();
      this.out.write(plain);
    }
    this.shown = plain;
    this.rows = Math.max(1, Math.ceil(cells(plain) / columns));
  }

  /** Erases what is shown: the cursor goes back to where the line began. */
  clear(): void {
    if (!this.shown) return;
    this.out.write(`\r${this.rows > 1 ? `\u001b[${this.rows - 1}A` : ''}\u001b[J`);
    this.shown = '';
    this.rows = 0;
  }
}
