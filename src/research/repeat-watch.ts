// A small model can fall into a loop, writing the same lines until its output limit (on a local model,
// many minutes). A stream whose latest 200 characters have already appeared twice is looping: the
// caller stops it. Prose and JSON that merely reuse a phrase never repeat a span that long.

export const REPEAT_SPAN = 200;
const TIMES = 3;
/** Checked again after this many new characters; only this much of the end is searched. */
const EVERY = 64;
const LOOK_BACK = 64_000;

export class RepeatWatch {
  private text = '';
  private checkedAt = 0;

  /** Adds a streamed piece; true once the stream is repeating itself. */
  push(delta: string): boolean {
    this.text += delta;
    if (this.text.length < REPEAT_SPAN * TIMES || this.text.length - this.checkedAt < EVERY) return false;
    this.checkedAt = this.text.length;
    const recent = this.text.slice(-LOOK_BACK);
    const span = recent.slice(-REPEAT_SPAN);
    let count = 0;
    for (let at = recent.indexOf(span); at >= 0; at = recent.indexOf(span, at + REPEAT_SPAN)) count++;
    return count >= TIMES;
  }

  /** The text up to the end of the repeated span's first time: what came before the loop. */
  beforeRepeats(): string {
    const span = this.text.slice(-REPEAT_SPAN);
    const first = this.text.indexOf(span);
    return first < 0 ? this.text : this.text.slice(0, first + span.length);
  }
}
