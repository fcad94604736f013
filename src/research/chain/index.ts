import { AgentError } from '../../errors.js';
import { loadAfterNextRequest } from '../../request-sent.js';
import type { Emit } from '../model-call.js';
import { fallbackPlan, followUp } from '../planning/follow-up.js';
import type { Plan } from '../planning/plan.js';
import { CapReached } from '../run/budget.js';
import type { ModelSetup, ResearchOptions, ResearchSettings } from '../types.js';
import { choosePlan } from './plan.js';
import { readingRounds } from './rounds.js';
import { type ChainResult, chainStart } from './start.js';
import { writeAnswer } from './write.js';

// The research chain with models, by responsibility: start.ts (the run's caller, ledger, cap, documents),
// plan.ts (the plan and its review), rounds.ts (collect and extract), write.ts (the answer).

export { planChain } from './plan.js';
export { type ChainResult, DEFAULT_CONCURRENCY } from './start.js';

/** Plan → (collect and extract, pipelined) → [follow-up → collect and extract]… → write. */
export async function modelChain(
  o: ResearchOptions,
  m: ModelSetup,
  settings: ResearchSettings,
  emit: Emit,
): Promise<ChainResult> {
  const start = await chainStart(o, m, emit, settings);
  try {
    return await chain(o, m, settings, emit, start);
  } finally {
    // Calls made while the database server was away are recorded now, if it is back.
    const left = await start.ledger.flush(o.store, o.userPrices);
    if (left > 0)
      emit({
        type: 'notice',
        message: `${left} model call(s) made while the database server was away could not be recorded in the ledger.`,
      });
  }
}

async function chain(
  o: ResearchOptions,
  m: ModelSetup,
  settings: ResearchSettings,
  emit: Emit,
  start: Awaited<ReturnType<typeof chainStart>>,
): Promise<ChainResult> {
  const { ledger, call, webAvailable, all, known, budget } = start;
  // The checks' reading (with the grounding check) is needed at the write: loaded while the plan request
  // is out (the process is idle then), not at start-up or between the plan and the sources.
  const reading = loadAfterNextRequest(() => import('../checks/read-ahead.js'));
  let plan = await choosePlan(o, m, settings, emit, start);
  await o.progress?.onPlan(1, plan);

  const rounds = readingRounds(o, m, settings, emit, start);
  const { sources, facts, failed, seen, searched } = rounds;
  let round = 1;
  for (; ; round++) {
    const collected = await rounds.collectAndExtract(round, plan);
    if (round === 1 && collected.length === 0) {
      // Nothing the plan chose could be read (every search failed, say): the best local matches, if any.
      const fallback = await fallbackPlan(o);
      if (fallback.documents.length) {
        emit({
          type: 'notice',
          message: 'Nothing the plan chose could be read: reading the best-matching local documents.',
        });
        await rounds.collectAndExtract(round, fallback);
      }
    }

    if (round >= settings.depth || budget?.stopped) break;
    if (sources.length >= settings.maxSources) {
      emit({
        type: 'notice',
        message: `Stopped at --max-sources (${settings.maxSources} sources): no further rounds.`,
      });
      break;
    }
    // 4. Follow up (small model): what is missing, and what to read for it.
    emit({ type: 'step', name: 'followup', round: round + 1 });
    const next =
      o.prior?.plan(round + 1) ??
      (await followUp(o, m, settings, call, {
        sources,
        facts,
        seen,
        searched,
        all,
        known,
        webAvailable,
      }).catch((error) => {
        if (!(budget && error instanceof CapReached)) throw error;
        rounds.stopAtCap();
        return undefined;
      }));
    if (!next) break;
    await o.progress?.onPlan(round + 1, next);
    if (next.gaps.length) emit({ type: 'notice', message: `Gaps: ${next.gaps.join('; ')}` });
    const fresh: Plan = {
      documents: next.documents.filter((d) => !seen.has(`doc:${d}`)),
      searches: next.searches.filter((q) => !searched.some((s) => s.toLowerCase() === q.toLowerCase())),
    };
    if (!fresh.documents.length && !fresh.searches.length) {
      emit({ type: 'notice', message: 'Nothing new to read: the sources gathered cover the question.' });
      break;
    }
    plan = fresh;
  }

  if (sources.length === 0 && budget?.stopped)
    throw new AgentError(
      'The spending cap (--max-cost) left no room to read any source after planning: raise it to get an answer.',
    );
  if (sources.length === 0)
    throw new AgentError(
      'No source could be collected for this question, so there is nothing to answer from.',
    );
  if (failed.size === sources.length)
    throw new AgentError(`The extract step failed for every source: ${failed.values().next().value}`);

  const { answer, truncated, ahead } = await writeAnswer(o, m, settings, emit, call, rounds, reading);
  return {
    mode: 'model',
    answer,
    sources,
    reports: rounds.reports,
    usage: ledger.totals(),
    rounds: round,
    truncated,
    ahead,
    ...(budget
      ? { budget: { limitUsd: budget.limitUsd, spentUsd: ledger.totals().costUsd, stopped: budget.stopped } }
      : {}),
  };
}
