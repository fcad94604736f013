import { AgentError } from '../../errors.js';
import { MAX_TOKENS } from '../model-call.js';
import { NO_FACTS } from '../planning/facts.js';
import type { RunContext, Writer } from '../run-context.js';
import type { Source } from '../sources.js';
import type { ResearchSettings } from '../types.js';
import type { Rounds } from './rounds.js';

// The write step: the answer (or, with --report, the report) from the facts of every source, with its
// prompts. Which of the two a run writes is decided once, by writerFor, and kept in the run's context.

/**
 * The reader's language, not the sources': a German question gets German whatever the sources are in.
 * Numbers stay as the sources write them, so the grounding check and a reader can find them there.
 */
export const LANGUAGE_RULE = [
  'Write in the language of the question, whatever language the notes are in (a German question gets a',
  'German answer). Quote numbers, amounts and dates exactly as the notes write them; do not convert their',
  'format or units.',
].join(' ');

const CITE_RULES = [
  'Use only facts from the notes. Put the source number in square brackets right after every fact, like',
  '"Refunds over $200 need approval [1]." or "[1][3]" for several sources. Never cite a number that is not listed.',
  'Write numbers, amounts and dates exactly as the notes give them, and cite the source whose note has them.',
].join(' ');

export const WRITE_SYSTEM = [
  'You write the answer to a research question from numbered notes.',
  CITE_RULES,
  'If the notes do not answer the question, say so plainly. Do not write a list of sources: it is added for you.',
  'Be concise: a short paragraph or a few bullet points, in plain Markdown.',
  LANGUAGE_RULE,
].join(' ');

export const REPORT_SYSTEM = [
  'You write a structured research report in Markdown from numbered notes.',
  CITE_RULES,
  'Structure: a "# " title; a summary of two to four sentences; then "## " sections whose headings follow the',
  'parts of the question, each with the facts that answer that part (tables where they help); then a section',
  '"## Gaps and caveats" saying what the notes did not settle, where sources disagree, and what is uncertain.',
  'Do not write a list of sources: it is added for you.',
  LANGUAGE_RULE,
].join(' ');

export function writePrompt(question: string, notes: { source: Source; facts: string }[]): string {
  const blocks = notes.map(
    ({ source, facts }) => `[${source.n}] ${source.title} (${source.location})\n${facts.trim()}`,
  );
  return `Question: ${question}\n\nNotes:\n\n${blocks.join('\n\n')}\n\nWrite in the language of the question above.`;
}

/** The run's writer: a structured report (--report) or a short answer. */
export function writerFor(settings: ResearchSettings): Writer {
  const step = settings.report ? 'report' : 'write';
  return {
    step,
    system: settings.report ? REPORT_SYSTEM : WRITE_SYSTEM,
    prompt: writePrompt,
    maxTokens: MAX_TOKENS[step],
  };
}

/**
 * The answer or report (large model, as the run's writer says), streamed, from every source's facts (a
 * failed extraction is marked so that its source is not cited). The caller says the step has begun.
 */
export async function writeAnswer(
  ctx: RunContext,
  { sources, facts, failed }: Pick<Rounds, 'sources' | 'facts' | 'failed'>,
): Promise<{ answer: string; truncated: boolean }> {
  const { options: o, models: m, emit, call, writer } = ctx;
  const notes = sources.map((source) => ({
    source,
    facts: failed.has(source)
      ? '(no facts: extraction failed; do not cite this source)'
      : (facts.get(source) ?? NO_FACTS),
  }));
  const written = await call(
    'write',
    m.largeModel,
    writer.system,
    [{ role: 'user', content: writer.prompt(o.question, notes) }],
    (delta) => emit({ type: 'text', delta }),
    writer.maxTokens,
  );
  if (!written.text.trim()) throw new AgentError('The writing model returned an empty answer.');
  const truncated = written.stopReason === 'length';
  if (truncated)
    emit({
      type: 'notice',
      message: `The ${writer.step === 'report' ? 'report' : 'answer'} was cut off at the output limit (${writer.maxTokens.toLocaleString('en-US')} tokens): it is incomplete.`,
    });
  return { answer: written.text.trim(), truncated };
}
