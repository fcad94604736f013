import { readFileSync } from 'node:fs';
import { ConfigError, errorMessage, UsageError } from '../../errors.js';
import type { ModelSetup, PlanView, ResearchOptions, RunUsage } from '../../research/pipeline.js';
import type { Plan } from '../../research/planning/plan.js';
import { parsePlanFile } from '../../research/planning/plan-file.js';
import { parseDomain } from '../../web/search/filters.js';
import { planLines, reviewPlan } from '../research-review.js';
import { clean, formatInt, formatUsd, styleFor } from '../style.js';

// What lets a user steer a run: the plan shown (--plan) or reviewed (--review) or given (--plan-file), and
// the web filters (--site, --exclude-site, --recent, with AGENT_SITES / AGENT_EXCLUDE_SITES as defaults).

export interface SteerOptions {
  plan?: boolean;
  review?: boolean;
  planFile?: string;
  site?: string[];
  excludeSite?: string[];
  recent?: string;
}

/** A comma-separated list of domains from the environment; a malformed entry is a ConfigError. */
function envDomains(env: NodeJS.ProcessEnv, name: string): string[] {
  const entries = (env[name] ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  return entries.map((entry) => {
    const domain = parseDomain(entry);
    if (!domain) throw new ConfigError(`${name} holds "${entry}", which is not a domain (e.g. example.com).`);
    return domain;
  });
}

/** The run's web filters: the flags, else the environment's defaults. */
export function webFilterOptions(
  o: SteerOptions,
  env: NodeJS.ProcessEnv,
): Pick<ResearchOptions, 'sites' | 'excludeSites' | 'recent'> {
  return {
    sites: o.site?.length ? o.site : envDomains(env, 'AGENT_SITES'),
    excludeSites: o.excludeSite?.length ? o.excludeSite : envDomains(env, 'AGENT_EXCLUDE_SITES'),
    recent: o.recent,
  };
}

/** Extractive mode reads no web: a web filter given as a flag there is said to do nothing. */
export function ignoredFilterFlags(o: SteerOptions): string | undefined {
  const given = [
    o.site?.length && '--site',
    o.excludeSite?.length && '--exclude-site',
    o.recent && '--recent',
  ];
  const flags = given.filter(Boolean);
  return flags.length ? `Extractive mode does not search the web: ${flags.join(', ')} ignored.` : undefined;
}

/**
 * Checks the plan flags before anything is spent, and reads --plan-file. They need a model (extractive
 * mode has no plan), and --review needs a terminal to ask on.
 */
export function steerOptions(
  o: SteerOptions,
  models: ModelSetup | undefined,
): Pick<ResearchOptions, 'plan' | 'review'> {
  const flag = o.plan ? '--plan' : o.review ? '--review' : o.planFile ? '--plan-file' : undefined;
  if (flag && !models)
    throw new UsageError(
      `${flag} needs a model, and extractive mode has none: set ANTHROPIC_API_KEY or OPENAI_API_KEY (or use --provider ollama), without --extractive.`,
    );
  if (o.review && !(process.stdin.isTTY && process.stderr.isTTY))
    throw new UsageError(
      '--review asks on a terminal, and this is not one: use --plan --json > plan.json, edit it, then --plan-file plan.json.',
    );
  let plan: Plan | undefined;
  if (o.planFile) {
    let text: string;
    try {
      text = readFileSync(o.planFile, 'utf8');
    } catch (error) {
      throw new UsageError(`Cannot read the plan file ${o.planFile}: ${errorMessage(error)}`);
    }
    plan = parsePlanFile(text, o.planFile);
  }
  return { plan, review: o.review ? (shown, documents) => reviewPlan(shown, documents) : undefined };
}

/** `--plan`: the plan on stdout (or as JSON), what planning cost on stderr. */
export function printPlan(result: { plan: PlanView; usage: RunUsage }, json: boolean | undefined): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  const out = styleFor(process.stdout);
  const err = styleFor(process.stderr);
  process.stdout.write(`${out.bold('Plan')}\n${planLines(result.plan).join('\n')}\n`);
  const u = result.usage;
  const spent = u.calls
    ? `${u.calls} model call${u.calls === 1 ? '' : 's'} · ${formatInt(u.inputTokens)} input, ${formatInt(u.outputTokens)} output tokens · ${formatUsd(u.costUsd)}`
    : 'No model call: the plan was given.';
  process.stderr.write(`${err.dim(clean(spent))}\n`);
  process.stderr.write(
    err.dim(
      'To run it edited: agent research --plan --json … > plan.json, edit, then --plan-file plan.json.\n',
    ),
  );
}
