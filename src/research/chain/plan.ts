import { AbortedError } from '../../errors.js';
import type { Message } from '../../types.js';
import { preloadWebModules } from '../../web/modules.js';
import { SEARCH_SETUP_HINT } from '../../web/search/config.js';
import type { DocumentInfo } from '../documents/index.js';
import { MAX_TOKENS } from '../model-call.js';
import { bestDocuments, fallbackPlan, PLAN_LIST_LIMIT } from '../planning/follow-up.js';
import {
  makePlan,
  PLAN_SCHEMA,
  PLAN_SYSTEM,
  type Plan,
  planPrompt,
  UnusablePlanError,
} from '../planning/plan.js';
import { checkPlanDocuments, planView } from '../planning/plan-file.js';
import { CapReached, capTooLow } from '../run/budget.js';
import type { RunContext } from '../run-context.js';

/**
 * The plan the run follows: the one given (--plan-file; its documents checked before anything is spent)
 * or the small model's, then the user's review of it (--review) when asked for.
 */
export async function choosePlan(ctx: RunContext): Promise<Plan> {
  const { options: o, models: m, settings, emit, call, webAvailable, documents: all, known, budget } = ctx;
  // A resumed run follows the plan it recorded.
  const recorded = o.prior?.plan(1);
  if (recorded) return recorded;
  let plan: Plan;
  if (o.plan) {
    checkPlanDocuments(o.plan, known, o.contentDir);
    plan = o.plan;
  } else {
    // The small model's plan. What web sources need loads meanwhile, off the critical path.
    if (webAvailable) preloadWebModules();
    emit({ type: 'step', name: 'plan' });
    const shown: DocumentInfo[] =
      all.length > PLAN_LIST_LIMIT ? await bestDocuments(o, o.question, PLAN_LIST_LIMIT) : all;
    const prompt = planPrompt(o.question, shown, webAvailable, settings.breadth);
    const ask = async (messages: Message[]) =>
      (
        await call('plan', m.smallModel, PLAN_SYSTEM, messages, undefined, MAX_TOKENS.plan, {
          jsonSchema: PLAN_SCHEMA,
          whole: true,
        })
      ).text;
    const planned = await makePlan(ask, prompt, known, { breadth: settings.breadth }).catch((error) => {
      if (budget && error instanceof CapReached) {
        const inputChars = PLAN_SYSTEM.length + prompt.length;
        throw capTooLow(budget, { model: m.smallModel, inputChars, maxTokens: MAX_TOKENS.plan });
      }
      if (!(error instanceof UnusablePlanError)) throw error;
      // Asked twice without a usable plan: the documents that best match the question are read instead.
      emit({
        type: 'notice',
        message:
          'The plan reply was not usable JSON, asked twice: reading the best-matching local documents instead.',
      });
      return { plan: { documents: [], searches: [], gaps: [] }, dropped: [], attempts: 2 };
    });
    if (planned.dropped.length)
      emit({
        type: 'notice',
        message: `The plan named unknown documents, ignored: ${planned.dropped.join(', ')}`,
      });
    plan = planned.plan;
    if (!plan.documents.length && !plan.searches.length) plan = await fallbackPlan(o);
  }
  if (o.review) {
    // The time spent reading and editing the plan is the review's own step, not the plan's.
    emit({ type: 'step', name: 'review' });
    const reviewed = await o.review(planView(plan, all), all);
    if (!reviewed) throw new AbortedError();
    plan = reviewed;
  }
  if (!webAvailable && plan.searches.length)
    emit({
      type: 'notice',
      message: `Web searches skipped: no search service is set up (${SEARCH_SETUP_HINT}).`,
    });
  return { documents: plan.documents, searches: plan.searches };
}
