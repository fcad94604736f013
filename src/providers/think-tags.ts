// Local reasoning models (DeepSeek-R1, Qwen3, QwQ through llama.cpp, vLLM or an older Ollama) put their
// reasoning inline in the text as `<think>…</think>`. This splits a text stream into text and reasoning,
// whatever the chunk boundaries (a tag may arrive one character at a time), so nothing above the
// providers ever sees the tags. A block still open when the stream ends stays reasoning.

import type { StreamEvent, TextPart } from '../types.js';

export interface ThinkPiece {
  kind: 'text' | 'reasoning';
  text: string;
}

const OPEN = '<think>';
const CLOSE = '</think>';

/** How many characters at the end of `s` could begin `tag` (held back until the next chunk decides). */
function partialTagAt(s: string, tag: string): number {
  for (let k = Math.min(tag.length - 1, s.length); k > 0; k--) if (tag.startsWith(s.slice(-k))) return k;
  return 0;
}

export class ThinkSplitter {
  private thinking = false;
  private held = '';
  /** After `</think>` and before any visible text: the blank lines there are not part of the answer. */
  private trimNext = false;

  /** The pieces of text and reasoning a chunk completes, in order. */
  push(chunk: string): ThinkPiece[] {
    let s = this.held + chunk;
    this.held = '';
    const out: ThinkPiece[] = [];
    for (;;) {
      // Outside a block a stray `</think>` (its `<think>` was in the prompt template) is dropped too.
      const tags = this.thinking ? [CLOSE] : [OPEN, CLOSE];
      const found = tags
        .map((tag) => ({ tag, at: s.indexOf(tag) }))
        .filter((f) => f.at >= 0)
        .sort((a, b) => a.at - b.at)[0];
      if (!found) {
        const keep = Math.max(...tags.map((tag) => partialTagAt(s, tag)));
        this.held = s.slice(s.length - keep);
        this.emit(out, s.slice(0, s.length - keep));
        return out;
      }
      this.emit(out, s.slice(0, found.at));
      if (found.tag === OPEN) this.thinking = true;
      else if (this.thinking) {
        this.thinking = false;
        this.trimNext = true;
      }
      s = s.slice(found.at + found.tag.length);
    }
  }

  /** What is left when the stream ends: a partial tag that never completed is plain content. */
  end(): ThinkPiece[] {
    const out: ThinkPiece[] = [];
    this.emit(out, this.held);
    this.held = '';
    return out;
  }

  private emit(out: ThinkPiece[], text: string): void {
    if (!text) return;
    if (this.thinking) {
      out.push({ kind: 'reasoning', text });
      return;
    }
    // The reasoning block is followed by blank lines before the answer: they are not part of it.
    const shown = this.trimNext ? text.replace(/^\s+/, '') : text;
    if (!shown) return;
    this.trimNext = false;
    out.push({ kind: 'text', text: shown });
  }
}

/** A whole text at once: its visible text and its reasoning. */
export function splitThink(text: string): { text: string; reasoning: string } {
  const splitter = new ThinkSplitter();
  const pieces = [...splitter.push(text), ...splitter.end()];
  const join = (kind: ThinkPiece['kind']) =>
    pieces
      .filter((p) => p.kind === kind)
      .map((p) => p.text)
      .join('');
  return { text: join('text'), reasoning: join('reasoning') };
}

/**
 * A streamed reply's text, with reasoning (inline `<think>` blocks, or a server's own reasoning field)
 * streamed apart and counted: what both chat-style providers keep while a stream runs.
 */
export class StreamedText {
  readonly part: TextPart = { type: 'text', text: '' };
  reasoningChars = 0;
  private readonly splitter = new ThinkSplitter();

  constructor(private readonly onEvent?: (event: StreamEvent) => void) {}

  /** Reasoning the server sent apart from the text. */
  reasoning(delta: string): void {
    this.reasoningChars += delta.length;
    this.onEvent?.({ type: 'reasoning', delta });
  }

  /** A chunk of the reply's text, which may hold `<think>` tags. */
  content(chunk: string): void {
    this.deliver(this.splitter.push(chunk));
  }

  /** The stream ended: what the splitter held back is delivered. */
  end(): void {
    this.deliver(this.splitter.end());
  }

  private deliver(pieces: ThinkPiece[]): void {
    for (const p of pieces) {
      if (p.kind === 'reasoning') this.reasoning(p.text);
      else {
        this.part.text += p.text;
        this.onEvent?.({ type: 'text', delta: p.text });
      }
    }
  }
}
