import { contextRefusal, promptTokens } from '../../providers/context.js';
import { emptyUsage, type Message, type Provider } from '../../types.js';
import { planExtraction, splitText, windowFor } from '../fit.js';
import { type Caller, type CallResult, type Emit, MAX_TOKENS } from '../model-call.js';
import { FACTS_SCHEMA, factsText, readFacts } from '../planning/facts.js';
import type { Source } from '../sources.js';
import { EXTRACT_SYSTEM, extractPrompt } from './extract-prompt.js';

// One source's facts. A source too long for the model's context is read in pieces that fit it, and their
// facts merged under the source; a piece the server refused as too long is read again in smaller pieces;
// a reply that cannot be read gets one request to repair it. Nothing is cut without being said.

/** Said in a source's facts when the server read only part of a prompt: the writer is told. */
export const CUT_NOTE =
  '(Only part of this source was read: the server cut the prompt. Facts from the rest may be missing.)';

export interface Extracted {
  /** The facts as the write prompt shows them ("- fact" lines, or NO_FACTS), with CUT_NOTE if cut. */
  facts: string;
  /** Every piece was read whole and answered in full: the facts may be cached. */
  whole: boolean;
}

type Piece = { prompt: string; text: string };

export async function extractFacts(o: {
  call: Caller;
  provider: Provider;
  model: string;
  question: string;
  source: Pick<Source, 'title' | 'location' | 'status' | 'text'>;
  emit: Emit;
}): Promise<Extracted> {
  const estimate = promptTokens({
    system: EXTRACT_SYSTEM,
    messages: [{ role: 'user', content: extractPrompt(o.question, o.source) }],
  });
  const window = await windowFor(o.provider, o.model, estimate);
  const plan = planExtraction(o.question, o.source, window, MAX_TOKENS.extract);
  const facts: string[] = [];
  let whole = true;
  let cut = false;
  const title = `"${o.source.title}"`;
  const label = (i: number, of: number) => (of > 1 ? `${title} (part ${i + 1} of ${of})` : title);

  const readPiece = async (piece: Piece, what: string, maxTokens: number, refit: boolean): Promise<void> => {
    let result: CallResult;
    try {
      result = await ask(o.call, o.model, piece.prompt, maxTokens, what);
    } catch (error) {
      // The server's context is smaller than known: this piece again, in pieces that fit what it said.
      const refusal = contextRefusal((error as { cause?: unknown }).cause);
      if (!refusal || !refit) throw error;
      const smaller = planExtraction(
        o.question,
        { ...o.source, text: piece.text },
        refusal.maxTokens,
        MAX_TOKENS.extract,
      );
      const parts = smaller.parts.length > 1 ? smaller.parts : halves(o.question, o.source, piece.text);
      for (const [i, p] of parts.entries())
        await readPiece(p, `${what} (piece ${i + 1} of ${parts.length})`, smaller.maxTokens, false);
      return;
    }
    let found = readFacts(result.text);
    if (found === undefined && !result.repeated) {
      const again = await ask(o.call, o.model, piece.prompt, maxTokens, what, result.text);
      result = { ...again, cut: result.cut || again.cut };
      found = readFacts(again.text);
    }
    if (found === undefined) {
      o.emit({
        type: 'notice',
        message: `The extraction of ${what} gave no readable facts, asked twice: none are taken from it.`,
      });
      whole = false;
    }
    facts.push(...(found ?? []));
    if (result.cut) cut = true;
    if (result.cut || result.repeated || result.stopReason === 'length') whole = false;
  };

  for (const [i, piece] of plan.parts.entries())
    await readPiece(piece, label(i, plan.parts.length), plan.maxTokens, true);
  const text = factsText(facts);
  return { facts: cut ? `${text}\n${CUT_NOTE}` : text, whole: whole && !cut };
}

/** The extraction request; with `unreadable`, the repair request that shows the reply and asks again. */
function ask(
  call: Caller,
  model: string,
  prompt: string,
  maxTokens: number,
  what: string,
  unreadable?: string,
) {
  const messages: Message[] = [{ role: 'user', content: prompt }];
  if (unreadable !== undefined)
    messages.push(
      {
        role: 'assistant',
        content: [{ type: 'text', text: unreadable.slice(0, 4000) || '(empty)' }],
        provider: 'history',
        model: 'history',
        usage: emptyUsage(),
        stopReason: 'stop',
      },
      {
        role: 'user',
        content:
          'That reply could not be read. Reply again with only the JSON object, in exactly this form: {"facts": ["fact", ...]}',
      },
    );
  return call('extract', model, EXTRACT_SYSTEM, messages, undefined, maxTokens, {
    jsonSchema: FACTS_SCHEMA,
    whole: true,
    what,
  });
}

/** A piece in two, when a server refused it without saying a size that splits it further. */
function halves(
  question: string,
  source: Pick<Source, 'title' | 'location' | 'status' | 'text'>,
  text: string,
): Piece[] {
  const parts = splitText(text, Math.ceil(text.length / 2) + 1);
  return parts.map((t, i) => ({
    text: t,
    prompt: extractPrompt(question, { ...source, text: t }, { n: i + 1, of: parts.length }),
  }));
}
