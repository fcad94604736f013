import { readJsonReply } from '../json-reply.js';

// An extraction's reply read into facts. The prompt asks for {"facts": [...]} (and Ollama is held to it
// by this schema); a model that answers with lines of facts instead, as the prompt once asked, is read
// too. Facts are kept as the lines "- fact", which the write and follow-up prompts show.

/** A source's facts when it holds none that help: what the extraction replies and the prompts show. */
export const NO_FACTS = 'NO RELEVANT FACTS';

export const FACTS_SCHEMA = {
  type: 'object',
  properties: { facts: { type: 'array', items: { type: 'string' } } },
  required: ['facts'],
};

const asFact = (v: unknown): string | undefined => {
  if (typeof v === 'string') return v.trim() || undefined;
  if (typeof v === 'number') return String(v);
  // {"fact": "…"} or {"text": "…"}: its first string.
  if (v && typeof v === 'object') return asFact(Object.values(v).find((x) => typeof x === 'string'));
  return undefined;
};

const factList = (value: unknown): unknown[] | undefined => {
  if (Array.isArray(value)) return value;
  const facts = (value as { facts?: unknown } | null)?.facts;
  return Array.isArray(facts) ? facts : undefined;
};

/**
 * The facts in an extraction's reply (an empty list when it found none); undefined when the reply cannot
 * be read: empty, or JSON that even a tolerant reading cannot make into a list of facts.
 */
export function readFacts(reply: string): string[] | undefined {
  const text = reply.trim();
  if (!text) return undefined;
  if (text === NO_FACTS || text.replace(/[`.]/g, '') === NO_FACTS) return [];
  const value = readJsonReply(text, (v) => factList(v) !== undefined);
  const list = factList(value);
  if (list) return list.map(asFact).filter((f): f is string => f !== undefined);
  // JSON that could not be read is not taken for lines of facts.
  if (/^(?:```|[{[])/.test(text)) return undefined;
  return text
    .split('\n')
    .map((l) => l.replace(/^\s*(?:[-*•]|\d{1,3}[.)])\s+/, '').trim())
    .filter((l) => l && l !== NO_FACTS);
}

/** Facts as the write and follow-up prompts show them: one "- fact" a line, the same fact once. */
export function factsText(facts: string[]): string {
  const unique = [...new Set(facts.map((f) => f.replace(/\s+/g, ' ').trim()).filter(Boolean))];
  return unique.length ? unique.map((f) => `- ${f}`).join('\n') : NO_FACTS;
}
