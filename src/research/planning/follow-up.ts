import { type DocumentInfo, searchDocuments } from '../documents/index.js';
import { MAX_TOKENS } from '../model-call.js';
import type { RunContext } from '../run-context.js';
import type { Source } from '../sources.js';
import type { ResearchOptions } from '../types.js';
import { NO_FACTS } from './facts.js';
import {
  FOLLOW_UP_SCHEMA,
  type FollowUp,
  followUpPrompt,
  makePlan,
  PLAN_SYSTEM,
  type Plan,
  UnusablePlanError,
} from './plan.js';

/** Above this many documents the planner sees only the best matches for the question, not the whole list. */
export const PLAN_LIST_LIMIT = 60;

/**
 * The folder's documents best for `query`: by the run's retrieval (hybrid or semantic ranks them by their
 * passages' meaning too, so a question worded otherwise still finds its document), else by keywords.
 */
export function bestDocuments(o: ResearchOptions, query: string, limit: number): Promise<DocumentInfo[]> {
  return o.retriever
    ? o.retriever.rankDocuments(query, limit)
    : searchDocuments(o.store, o.contentDir, query, limit);
}

/**
 * The follow-up question to the small model. A reply that is not usable JSON twice ends deepening with a
 * notice (the run still writes from what it has); undefined then.
 */
export async function followUp(
  ctx: RunContext,
  st: {
    sources: Source[];
    facts: Map<Source, string>;
    seen: Set<string>;
    searched: string[];
  },
): Promise<FollowUp | undefined> {
  const { options: o, models: m, settings, call, documents, known, webAvailable } = ctx;
  const unread = documents.filter((d) => !st.seen.has(`doc:${d.slug}`));
  const shown =
    unread.length > PLAN_LIST_LIMIT
      ? (await bestDocuments(o, o.question, PLAN_LIST_LIMIT * 2))
          .filter((d) => !st.seen.has(`doc:${d.slug}`))
          .slice(0, PLAN_LIST_LIMIT)
      : unread;
  const prompt = followUpPrompt({
    question: o.question,
    facts: st.sources.map((s) => `[${s.n}] ${s.title}\n${st.facts.get(s) ?? NO_FACTS}`).join('\n\n'),
    read: st.sources.map((s) => s.slug ?? s.location),
    searched: st.searched,
    documents: shown,
    webAvailable,
    breadth: settings.breadth,
  });
  try {
    const { plan, dropped } = await makePlan(
      async (messages) =>
        (
          await call('followup', m.smallModel, PLAN_SYSTEM, messages, undefined, MAX_TOKENS.followup, {
            jsonSchema: FOLLOW_UP_SCHEMA,
            whole: true,
          })
        ).text,
      prompt,
      known,
      {
        breadth: settings.breadth,
        what: 'follow-up',
        shape: '{"gaps": [...], "documents": [...], "searches": [...]}',
      },
    );
    if (dropped.length)
      o.onEvent?.({
        type: 'notice',
        message: `The follow-up named unknown documents, ignored: ${dropped.join(', ')}`,
      });
    return webAvailable ? plan : { ...plan, searches: [] };
  } catch (error) {
    if (!(error instanceof UnusablePlanError)) throw error;
    o.onEvent?.({
      type: 'notice',
      message:
        'The follow-up reply was not usable JSON twice: no further rounds; writing from what was gathered.',
    });
    return undefined;
  }
}

/** A plan that chose nothing still gets the best matches, rather than an answer from nothing. */
export async function fallbackPlan(o: ResearchOptions): Promise<Plan> {
  const hits = await bestDocuments(o, o.question, 2);
  return { documents: hits.map((h) => h.slug), searches: [] };
}
