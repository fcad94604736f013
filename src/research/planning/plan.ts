import { AgentError, errorMessage } from '../../errors.js';
import { emptyUsage, type Message } from '../../types.js';
import type { DocumentInfo } from '../documents/index.js';
import { readJsonReply } from '../json-reply.js';

export interface Plan {
  documents: string[];
  searches: string[];
}

/** A follow-up round: what the facts so far leave open, and what to read next. */
export interface FollowUp extends Plan {
  gaps: string[];
}

/**
 * The reply's lists, checked by hand: three optional arrays of strings need no schema library, and zod
 * would otherwise load before the first model request.
 */
function planLists(value: unknown): FollowUp {
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new Error('reply: expected a JSON object');
  const record = value as Record<string, unknown>;
  const list = (key: keyof FollowUp): string[] => {
    const v = record[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v))
      throw new Error(`${key}: expected an array of strings, got ${JSON.stringify(v).slice(0, 60)}`);
    const bad = v.findIndex((x) => typeof x !== 'string');
    if (bad >= 0) throw new Error(`${key}.${bad}: expected a string`);
    return v as string[];
  };
  return { gaps: list('gaps'), documents: list('documents'), searches: list('searches') };
}

const documentList = (documents: DocumentInfo[]) =>
  documents.length ? documents.map((d) => `- ${d.slug}: ${d.title}`).join('\n') : '(none)';

export function planPrompt(
  question: string,
  documents: DocumentInfo[],
  webAvailable: boolean,
  breadth = 3,
): string {
  return [
    `Question: ${question}`,
    '',
    'Local documents (slug: title):',
    documentList(documents),
    '',
    webAvailable ? 'Web search is available.' : 'Web search is not available; leave "searches" empty.',
    '',
    'Reply with JSON only, no other text, in exactly this form:',
    '{"documents": ["slug", ...], "searches": ["query", ...]}',
    `Choose at most ${breadth} documents likely to hold the answer (slugs exactly as listed) and at most ${breadth}`,
    'short web search queries, only if the web is needed. Use [] for none.',
  ].join('\n');
}

export function followUpPrompt(o: {
  question: string;
  facts: string;
  read: string[];
  searched: string[];
  documents: DocumentInfo[];
  webAvailable: boolean;
  breadth: number;
}): string {
  return [
    `Question: ${o.question}`,
    '',
    'Facts gathered so far, by source:',
    o.facts || '(none)',
    '',
    'Already read (do not propose again):',
    o.read.length ? o.read.map((r) => `- ${r}`).join('\n') : '(nothing)',
    'Already searched:',
    o.searched.length ? o.searched.map((q) => `- ${q}`).join('\n') : '(nothing)',
    '',
    'Local documents not read yet (slug: title):',
    documentList(o.documents),
    '',
    o.webAvailable ? 'Web search is available.' : 'Web search is not available; leave "searches" empty.',
    '',
    'Which parts of the question do the facts leave unanswered or uncertain? Reply with JSON only, no other',
    'text, in exactly this form:',
    '{"gaps": ["what is still missing", ...], "documents": ["slug", ...], "searches": ["query", ...]}',
    `At most ${o.breadth} documents (slugs exactly as listed) and at most ${o.breadth} new, different web searches`,
    'that would fill the gaps. If the facts already cover the question, reply with empty lists.',
  ].join('\n');
}

/** The small model answered twice with something that is not a usable plan. */
export class UnusablePlanError extends AgentError {}

export const PLAN_SYSTEM = 'You plan research. You answer with a single JSON object and nothing else.';

const strings = { type: 'array', items: { type: 'string' } };
/** The plan's shape, for a provider that holds the model to it (Ollama's `format`). */
export const PLAN_SCHEMA = {
  type: 'object',
  properties: { documents: strings, searches: strings },
  required: ['documents', 'searches'],
};
export const FOLLOW_UP_SCHEMA = {
  type: 'object',
  properties: { gaps: strings, documents: strings, searches: strings },
  required: ['gaps', 'documents', 'searches'],
};

/** Reads a plan (or follow-up) from a reply: the JSON object may sit in a code fence or among words. */
export function parsePlan(
  reply: string,
  known: Set<string>,
  breadth = 3,
): { plan: FollowUp; dropped: string[] } {
  // Read tolerantly (a fence, prose around it, trailing commas, single quotes: see json-reply.ts).
  const value = readJsonReply(reply, (v) => !Array.isArray(v));
  if (value === undefined)
    throw new Error(reply.includes('{') ? 'the JSON is not valid' : 'the reply contains no JSON object');
  const lists = planLists(value);
  // A model may add the file's extension to a slug; a slug that itself ends so is taken as it is.
  const slugOf = (name: string) => {
    const d = name.trim();
    return known.has(d) ? d : d.replace(/\.(md|markdown|txt|html?|pdf|docx)$/i, '');
  };
  const documents = [...new Set(lists.documents.map(slugOf))];
  const dropped = documents.filter((d) => !known.has(d));
  return {
    plan: {
      gaps: lists.gaps.map((g) => g.trim()).filter(Boolean),
      documents: documents.filter((d) => known.has(d)).slice(0, breadth),
      searches: [...new Set(lists.searches.map((q) => q.trim()).filter(Boolean))].slice(0, breadth),
    },
    dropped,
  };
}

/**
 * Asks for a plan; on a reply that cannot be used, asks once more showing the reply and what was wrong.
 * A second failure throws an UnusablePlanError with the model's own words.
 */
export async function makePlan(
  ask: (messages: Message[]) => Promise<string>,
  prompt: string,
  known: Set<string>,
  options: { breadth?: number; what?: string; shape?: string } = {},
): Promise<{ plan: FollowUp; dropped: string[]; attempts: number }> {
  const breadth = options.breadth ?? 3;
  const shape = options.shape ?? '{"documents": [...], "searches": [...]}';
  const messages: Message[] = [{ role: 'user', content: prompt }];
  const first = await ask(messages);
  try {
    return { ...parsePlan(first, known, breadth), attempts: 1 };
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
        content: `That reply could not be used: ${problem}. Reply again with only the JSON object: ${shape}`,
      },
    ];
    const second = await ask(retry);
    try {
      return { ...parsePlan(second, known, breadth), attempts: 2 };
    } catch (again) {
      throw new UnusablePlanError(
        `The ${options.what ?? 'planning'} model did not return a usable plan (${errorMessage(again)}). Its reply: ${second.slice(0, 400) || '(empty)'}`,
      );
    }
  }
}
