import { createInterface } from 'node:readline/promises';
import type { DocumentInfo } from '../research/documents/index.js';
import type { PlanView } from '../research/pipeline.js';
import type { Plan } from '../research/planning/plan.js';
import { planOf } from '../research/planning/plan-file.js';
import { clean, styleFor } from './style.js';

// `agent research --review`: the plan, numbered, on the terminal; the user keeps it, drops items, adds a
// search or a document, or cancels, before anything but the plan call is spent.

/** The plan as numbered lines: documents first, then searches, numbered on through both. */
export function planLines(plan: PlanView): string[] {
  const lines: string[] = [];
  let n = 0;
  if (plan.documents.length) {
    lines.push('Documents:');
    for (const d of plan.documents) lines.push(`  ${++n}. ${clean(d.slug)} — ${clean(d.title)}`);
  }
  if (plan.searches.length) {
    lines.push('Web searches:');
    for (const q of plan.searches) lines.push(`  ${++n}. ${clean(q)}`);
  }
  if (!n) lines.push('(nothing: add a document or a search)');
  return lines;
}

export type ReviewStep =
  | { kind: 'keep' }
  | { kind: 'cancel' }
  | { kind: 'edit'; plan: PlanView }
  | { kind: 'problem'; message: string };

/**
 * One line typed at the review prompt, applied to the plan: Enter keeps it; numbers (`2`, `1 3`, `1,3`)
 * drop those items; `+ query` adds a web search; `@slug` adds a document; `q` cancels.
 */
export function reviewStep(plan: PlanView, line: string, documents: DocumentInfo[]): ReviewStep {
  const input = line.trim();
  if (!input) {
    if (!plan.documents.length && !plan.searches.length)
      return { kind: 'problem', message: 'The plan is empty: add a document or a search, or q to cancel.' };
    return { kind: 'keep' };
  }
  if (/^(q|quit|cancel)$/i.test(input)) return { kind: 'cancel' };
  if (input.startsWith('+')) {
    const query = input.slice(1).trim();
    if (!query)
      return { kind: 'problem', message: 'Type the search after the +, e.g. + refund law in France' };
    if (plan.searches.some((q) => q.toLowerCase() === query.toLowerCase()))
      return { kind: 'problem', message: `The plan already searches "${query}".` };
    return { kind: 'edit', plan: { ...plan, searches: [...plan.searches, query] } };
  }
  if (input.startsWith('@')) {
    const slug = input.slice(1).trim();
    const doc = documents.find((d) => d.slug === slug);
    if (!doc) {
      const near = documents
        .filter((d) => slug && (d.slug.includes(slug) || d.title.toLowerCase().includes(slug.toLowerCase())))
        .slice(0, 5)
        .map((d) => `@${d.slug}`);
      return {
        kind: 'problem',
        message: `No document "${slug}"${near.length ? `; did you mean ${near.join(', ')}?` : '.'}`,
      };
    }
    if (plan.documents.some((d) => d.slug === slug))
      return { kind: 'problem', message: `The plan already reads ${slug}.` };
    return {
      kind: 'edit',
      plan: { ...plan, documents: [...plan.documents, { slug: doc.slug, title: doc.title }] },
    };
  }
  if (/^[\d\s,]+$/.test(input)) {
    const total = plan.documents.length + plan.searches.length;
    const numbers = input
      .split(/[\s,]+/)
      .filter(Boolean)
      .map(Number);
    const wrong = numbers.filter((n) => n < 1 || n > total);
    if (wrong.length)
      return {
        kind: 'problem',
        message: `No item ${wrong.join(', ')}: the plan has ${total === 1 ? 'item 1' : `items 1 to ${total}`}.`,
      };
    const drop = new Set(numbers);
    const docs = plan.documents.length;
    return {
      kind: 'edit',
      plan: {
        documents: plan.documents.filter((_, i) => !drop.has(i + 1)),
        searches: plan.searches.filter((_, i) => !drop.has(docs + i + 1)),
      },
    };
  }
  return {
    kind: 'problem',
    message: 'Enter to run, numbers to drop, + query to add a search, @slug to add a document, q to cancel.',
  };
}

/** Asks on the terminal (prompt on stderr) until the user keeps the plan (returned) or cancels (undefined). */
export async function reviewPlan(
  shown: PlanView,
  documents: DocumentInfo[],
  input: NodeJS.ReadStream = process.stdin,
  output: NodeJS.WriteStream = process.stderr,
): Promise<Plan | undefined> {
  const s = styleFor(output);
  const rl = createInterface({ input, output, terminal: true });
  // Ctrl-C or Ctrl-D at the prompt cancels: the interface closes, and a pending question never answers.
  const closed = new Promise<undefined>((resolve) => rl.once('close', () => resolve(undefined)));
  rl.on('SIGINT', () => rl.close());
  let plan = shown;
  output.write(`\n${s.bold('The plan')}\n${planLines(plan).join('\n')}\n`);
  output.write(
    s.dim(
      'Enter runs it · numbers drop items (1 3) · + query adds a search · @slug adds a document · q cancels\n',
    ),
  );
  try {
    for (;;) {
      const line = await Promise.race([rl.question('review> ').catch(() => undefined), closed]);
      if (line === undefined) return undefined;
      const step = reviewStep(plan, line, documents);
      if (step.kind === 'keep') return planOf(plan);
      if (step.kind === 'cancel') return undefined;
      if (step.kind === 'problem') output.write(`${s.yellow(step.message)}\n`);
      else {
        plan = step.plan;
        output.write(`${planLines(plan).join('\n')}\n`);
      }
    }
  } finally {
    rl.close();
  }
}
