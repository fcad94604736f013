import { UsageError } from '../../errors.js';
import type { DocumentInfo } from '../documents/index.js';
import type { Plan } from './plan.js';

// The plan as a user sees and edits it: `agent research --plan --json` prints it, `--review` shows it
// numbered, `--plan-file` runs it back.

/** A plan with each document's title: `{"documents": [{"slug", "title"}], "searches": ["query"]}`. */
export interface PlanView {
  documents: { slug: string; title: string }[];
  searches: string[];
}

export function planView(plan: Plan, documents: DocumentInfo[]): PlanView {
  const titles = new Map(documents.map((d) => [d.slug, d.title]));
  return {
    documents: plan.documents.map((slug) => ({ slug, title: titles.get(slug) ?? slug })),
    searches: [...plan.searches],
  };
}

export const planOf = (view: PlanView): Plan => ({
  documents: view.documents.map((d) => d.slug),
  searches: [...view.searches],
});

/**
 * Reads a plan file: what `--plan --json` prints (`{"plan": {...}, "usage": ...}`), or the plan object
 * alone; documents as `{"slug": ...}` objects or plain slugs, searches as strings (or `{"query": ...}`).
 * Anything else is a UsageError that says where.
 */
export function parsePlanFile(text: string, name: string): Plan {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `The plan file ${name} is not valid JSON (${(error as Error).message}). Write it as agent research --plan --json prints it.`,
    );
  }
  const bad = (what: string): never => {
    throw new UsageError(
      `The plan file ${name} ${what}. Expected {"documents": ["slug" or {"slug": ...}], "searches": ["query"]}, optionally inside {"plan": ...}.`,
    );
  };
  const record = (v: unknown): v is Record<string, unknown> =>
    Boolean(v) && typeof v === 'object' && !Array.isArray(v);
  if (!record(value)) return bad('is not a JSON object');
  const plan = record(value.plan) ? value.plan : value;
  const list = (key: 'documents' | 'searches', field: 'slug' | 'query'): string[] => {
    const v = plan[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) return bad(`has "${key}" that is not a list`);
    return v.map((item, i) => {
      const s = typeof item === 'string' ? item : record(item) ? item[field] : undefined;
      if (typeof s !== 'string' || !s.trim()) return bad(`has ${key}[${i}] that is not a ${field}`);
      return s.trim();
    });
  };
  if (!('documents' in plan) && !('searches' in plan)) return bad('has neither "documents" nor "searches"');
  const result = {
    documents: [...new Set(list('documents', 'slug'))],
    searches: [...new Set(list('searches', 'query'))],
  };
  if (!result.documents.length && !result.searches.length) bad('names no documents and no searches');
  return result;
}

/** Refuses a plan naming documents the content folder does not hold, naming them all. */
export function checkPlanDocuments(plan: Plan, known: Set<string>, contentDir: string): void {
  const unknown = plan.documents.filter((d) => !known.has(d));
  if (unknown.length)
    throw new UsageError(
      `The plan names ${unknown.length === 1 ? 'a document' : 'documents'} not in ${contentDir}: ${unknown.join(', ')}. Use the slugs agent research --plan lists.`,
    );
}
