import type { ResearchResult } from './types.js';

/**
 * The result as `agent research --json` prints it and as a saved run keeps it (`agent reports --show <id>
 * --json` prints the same object). Keys are a contract for scripts: add, never rename.
 */
export function resultJson(result: ResearchResult): Record<string, unknown> {
  return {
    ...(result.id !== undefined ? { id: result.id } : {}),
    question: result.question,
    mode: result.mode,
    answer: result.answer,
    sources: result.sources.map((s) => ({
      n: s.n,
      title: s.title,
      location: s.location,
      kind: s.kind,
      read: s.status,
      ...(s.readAt ? { readAt: s.readAt } : {}),
      // Its facts came from the extraction cache: not paid for by this run.
      ...(s.cached ? { cached: true } : {}),
    })),
    citations: result.citations,
    grounding: result.grounding,
    evidence: result.evidence,
    ...(result.verification
      ? { verification: result.verification, verificationComplete: result.verificationComplete ?? false }
      : {}),
    usage: result.usage,
    ...(result.budget ? { budget: result.budget } : {}),
    ...(result.retrieval ? { retrieval: result.retrieval } : {}),
    format: result.settings.report ? 'report' : 'answer',
    settings: result.settings,
    rounds: result.rounds,
    truncated: result.truncated,
    ...(result.timings ? { timings: result.timings } : {}),
    createdAt: result.createdAt,
  };
}
