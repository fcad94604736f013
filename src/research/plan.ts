import { z } from 'zod';
import { AgentError, errorMessage } from '../errors.js';
import { emptyUsage, type Message } from '../types.js';
import type { DocumentInfo } from './documents.js';

export interface Plan {
  documents: string[];
  searches: string[];
}

const planSchema = z.object({
  documents: z.array(z.string()).default([]),
  searches: z.array(z.string()).default([]),
});

export function planPrompt(question: string, documents: DocumentInfo[], webAvailable: boolean): string {
  const list = documents.length ? documents.map((d) => `- ${d.slug}: ${d.title}`).join('\n') : '(none)';
  return [
    `Question: ${question}`,
    '',
    'Local documents (slug: title):',
    list,
    '',
    webAvailable ? 'Web search is available.' : 'Web search is not available; leave "searches" empty.',
    '',
    'Reply with JSON only, no other text, in exactly this form:',
    '{"documents": ["slug", ...], "searches": ["query", ...]}',
    'Choose at most 3 documents likely to hold the answer (slugs exactly as listed) and at most 3 short web',
    'search queries, only if the web is needed. Use [] for none.',
  ].join('\n');
}

export const PLAN_SYSTEM = 'You plan research. You answer with a single JSON object and nothing else.';

/** Reads a plan from a reply: the JSON object may sit in a code fence or among words. */
export function parsePlan(reply: string, known: Set<string>): { plan: Plan; dropped: string[] } {
  const start = reply.indexOf('{');
  const end = reply.lastIndexOf('}');
  if (start < 0 || end < start) throw new Error('the reply contains no JSON object');
  let value: unknown;
  try {
    value = JSON.parse(reply.slice(start, end + 1));
  } catch (error) {
    throw new Error(`the JSON is not valid (${errorMessage(error)})`);
  }
  const parsed = planSchema.safeParse(value);
  if (!parsed.success) {
    throw new Error(
      parsed.error.issues.map((i) => `${i.path.join('.') || 'reply'}: ${i.message}`).join('; '),
    );
  }
  const documents = [
    ...new Set(parsed.data.documents.map((d) => d.trim().replace(/\.(md|markdown|txt)$/i, ''))),
  ];
  const dropped = documents.filter((d) => !known.has(d));
  return {
    plan: {
      documents: documents.filter((d) => known.has(d)).slice(0, 3),
      searches: [...new Set(parsed.data.searches.map((q) => q.trim()).filter(Boolean))].slice(0, 3),
    },
    dropped,
  };
}

/**
 * Asks for a plan; on a reply that cannot be used, asks once more showing the reply and what was wrong.
 * A second failure stops the run with the model's own words in the error.
 */
export async function makePlan(
  ask: (messages: Message[]) => Promise<string>,
  prompt: string,
  known: Set<string>,
): Promise<{ plan: Plan; dropped: string[]; attempts: number }> {
  const messages: Message[] = [{ role: 'user', content: prompt }];
  const first = await ask(messages);
  try {
    return { ...parsePlan(first, known), attempts: 1 };
  } catch (error) {
    const problem = errorMessage(error);
    const retry: Message[] = [
      ...messages,
      {
        role: 'assistant',
        content: [{ type: 'text', text: first || '(empty)' }],
        provider: 'history',
        model: 'history',
        usage: emptyUsage(),
        stopReason: 'stop',
      },
      {
        role: 'user',
        content: `That reply could not be used: ${problem}. Reply again with only the JSON object: {"documents": [...], "searches": [...]}`,
      },
    ];
    const second = await ask(retry);
    try {
      return { ...parsePlan(second, known), attempts: 2 };
    } catch (again) {
      throw new AgentError(
        `The planning model did not return a usable plan (${errorMessage(again)}). Its reply: ${second.slice(0, 400) || '(empty)'}`,
      );
    }
  }
}
