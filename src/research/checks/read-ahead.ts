import { indexSentences, type SentenceIndex } from './evidence/rank.js';
import { locatedSentences } from './evidence/sentences.js';
import { type FigureIndex, indexSource } from './grounding/index.js';

// The grounding check and the evidence finder spend most of their time reading the sources, which does
// not depend on the answer: a run reads them while the writing model streams (the process is otherwise
// idle, waiting on the network), so that once the answer ends only its claims are left to check. One
// source per turn of the event loop, so the stream's chunks are never held up for more than one source.

export interface ReadAhead {
  /** By source text: what grounding reads from it. */
  grounding: Map<string, FigureIndex>;
  /**
   * By source text: its sentences as evidence quotes them, indexed for every term (the answer's terms
   * are not known yet; a claim's terms then find the same postings as in an index of those terms only).
   */
  evidence: Map<string, SentenceIndex>;
  /** Stops reading (what is read stays usable); the checks read the rest themselves. */
  stop(): void;
}

export function readAhead(sources: readonly { text: string }[]): ReadAhead {
  const texts = [...new Set(sources.map((s) => s.text))];
  let next = 0;
  let timer: NodeJS.Immediate | undefined;
  const ahead: ReadAhead = {
    grounding: new Map(),
    evidence: new Map(),
    stop: () => clearImmediate(timer),
  };
  const step = () => {
    const text = texts[next++];
    if (text === undefined) return;
    read(ahead, text);
    timer = setImmediate(step);
  };
  timer = setImmediate(step);
  return ahead;
}

/** All at once (the benches time it; a run reads ahead with readAhead). */
export function readAheadNow(sources: readonly { text: string }[]): ReadAhead {
  const ahead: ReadAhead = { grounding: new Map(), evidence: new Map(), stop: () => {} };
  for (const { text } of sources) if (!ahead.grounding.has(text)) read(ahead, text);
  return ahead;
}

function read(ahead: ReadAhead, text: string): void {
  const index = indexSource(text);
  // What its sentences give by working out, which a claim whose figure is not found asks for: worked
  // out now, while the answer streams, rather than after it.
  index.derived();
  ahead.grounding.set(text, index);
  ahead.evidence.set(text, indexSentences(locatedSentences(text)));
}
