import { AgentError } from '../../errors.js';
import type { ReadAhead } from '../checks/read-ahead.js';
import { type Caller, type Emit, MAX_TOKENS } from '../model-call.js';
import { NO_FACTS, REPORT_SYSTEM, WRITE_SYSTEM, writePrompt } from '../planning/prompts.js';
import type { ModelSetup, ResearchOptions, ResearchSettings } from '../types.js';
import type { Rounds } from './rounds.js';

/**
 * 5. Write (large model), streamed, from every source's facts (a failed extraction is marked so that its
 * source is not cited). The checks' reading of the sources overlaps the write, which only waits on the model.
 */
export async function writeAnswer(
  o: ResearchOptions,
  m: ModelSetup,
  settings: ResearchSettings,
  emit: Emit,
  call: Caller,
  { sources, facts, failed }: Pick<Rounds, 'sources' | 'facts' | 'failed'>,
  reading: () => Promise<typeof import('../checks/read-ahead.js')>,
): Promise<{ answer: string; truncated: boolean; ahead: ReadAhead }> {
  const step = settings.report ? 'report' : 'write';
  const writeSystem = settings.report ? REPORT_SYSTEM : WRITE_SYSTEM;
  emit({ type: 'step', name: step });
  const notes = sources.map((source) => ({
    source,
    facts: failed.has(source)
      ? '(no facts: extraction failed; do not cite this source)'
      : (facts.get(source) ?? NO_FACTS),
  }));
  const ahead = (await reading()).readAhead(sources);
  const written = await call(
    'write',
    m.largeModel,
    writeSystem,
    [{ role: 'user', content: writePrompt(o.question, notes) }],
    (delta) => emit({ type: 'text', delta }),
    MAX_TOKENS[step],
  ).finally(ahead.stop);
  if (!written.text.trim()) throw new AgentError('The writing model returned an empty answer.');
  const truncated = written.stopReason === 'length';
  if (truncated)
    emit({
      type: 'notice',
      message: `The ${settings.report ? 'report' : 'answer'} was cut off at the output limit (${MAX_TOKENS[step].toLocaleString('en-US')} tokens): it is incomplete.`,
    });
  return { answer: written.text.trim(), truncated, ahead };
}
