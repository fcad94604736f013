// The channel between pdf.js's two halves, both on this thread. pdf.js's own in-thread channel (its
// "fake worker", used where there are no web workers) passes every message through structuredClone, as a
// real worker boundary would: each page's text is copied once more, and on long documents the copies and
// their garbage were a third of the time spent reading. This channel hands messages over as they are,
// after the sender's current task, as a posted message arrives.
//
// One thing a copy did matters: a stream's sender reuses what it has sent. After enqueuing a chunk, the
// text reader replaces the chunk's `items` and `styles`, and the operator list empties its arrays in
// place. So a chunk is copied two levels deep (its fields, and the arrays they hold), which is all that
// is reused; the items themselves are new objects each time. This holds for the pdf.js version pinned in
// package.json; test/formats/pdf/stock.test.ts reads documents both ways and expects the same lines.

type Listener = (this: DirectPort, event: { data: unknown }) => void;

const copyField = (value: unknown): unknown =>
  Array.isArray(value) || ArrayBuffer.isView(value) ? (value as { slice(): unknown }).slice() : value;

/** A stream chunk as it is now: its fields and their arrays copied, what they hold shared. */
function snapshot(chunk: unknown): unknown {
  if (chunk === null || typeof chunk !== 'object' || Array.isArray(chunk) || ArrayBuffer.isView(chunk))
    return copyField(chunk);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(chunk)) out[key] = copyField(value);
  return out;
}

export class DirectPort {
  readonly #listeners = new Set<Listener>();

  postMessage(message: unknown): void {
    const data =
      message !== null && typeof message === 'object' && 'chunk' in message
        ? { ...message, chunk: snapshot(message.chunk) }
        : message;
    const event = { data };
    queueMicrotask(() => {
      for (const listener of this.#listeners) listener.call(this, event);
    });
  }

  addEventListener(_type: 'message', listener: Listener): void {
    this.#listeners.add(listener);
  }

  removeEventListener(_type: 'message', listener: Listener): void {
    this.#listeners.delete(listener);
  }

  terminate(): void {
    this.#listeners.clear();
  }
}
