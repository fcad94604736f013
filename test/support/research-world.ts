import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Price } from '../../src/providers/prices.js';
import type { ModelRequest, Provider } from '../../src/types.js';
import { type FakeResponse, json, type RecordedRequest, startFakeServer } from './fake-server.js';
import { reply, text } from './scripted-provider.js';

// A small world for research tests: a content folder, a web of pages behind a Brave-style search service
// on loopback, and a model that answers by step (recognised from its system prompt), recording every call.

export function contentFolder(files: Record<string, string | Buffer>): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-content-'));
  for (const [name, body] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), body);
  }
  return dir;
}

/** A price file in USD per million tokens. */
export function prices(table: Record<string, { input: number; output: number }>): string {
  const path = join(mkdtempSync(join(tmpdir(), 'agent-prices-')), 'prices.json');
  writeFileSync(path, JSON.stringify(table));
  return path;
}

/** The research command on the loopback model (OpenAI-compatible) with models named small and large. */
export const LOOPBACK_RESEARCH = [
  'research',
  '--provider',
  'openai-compatible',
  '--small-model',
  'small',
  '--large-model',
  'large',
];

export interface Page {
  body: string | Buffer;
  type?: string;
  status?: number;
  /** Milliseconds before the page is served. */
  delay?: number;
  /** Redirect here (with status 302 unless given). */
  location?: string;
}

/**
 * Search results by query (paths on the web server), and the pages themselves; `searchDelays` holds
 * milliseconds before a query is answered.
 */
export async function fakeWeb(
  results: Record<string, string[]>,
  pages: Record<string, Page>,
  searchDelays: Record<string, number> = {},
) {
  const hits = new Map<string, number>();
  const served: { path: string; at: number }[] = [];
  const answered: { query: string; at: number }[] = [];
  const server = await startFakeServer([], async (req: RecordedRequest): Promise<FakeResponse> => {
    const url = new URL(req.url, 'http://x');
    if (url.pathname === '/search') {
      const q = url.searchParams.get('q') ?? '';
      if (searchDelays[q]) await new Promise((r) => setTimeout(r, searchDelays[q]));
      answered.push({ query: q, at: Date.now() });
      const count = Number(url.searchParams.get('count') ?? 10);
      const list = (results[q] ?? []).slice(0, count).map((path, i) => ({
        title: `Result ${i + 1} for ${q}`,
        url: path.startsWith('http') ? path : `${server.url}${path}`,
        description: `Snippet ${i + 1} for ${q}`,
      }));
      return json(200, { web: { results: list } });
    }
    const key = url.pathname + url.search;
    hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
    const page = pages[url.pathname] ?? pages[key];
    if (!page) return { status: 404, headers: { 'content-type': 'text/plain' }, body: 'not found' };
    if (page.delay) await new Promise((r) => setTimeout(r, page.delay));
    served.push({ path: url.pathname, at: Date.now() });
    if (page.location)
      return { status: page.status ?? 302, headers: { location: `${server.url}${page.location}` }, body: '' };
    return {
      status: page.status ?? 200,
      headers: { 'content-type': page.type ?? 'text/html' },
      body: page.body as string,
    };
  });
  const env = {
    BRAVE_SEARCH_KEY: 'test-key',
    BRAVE_SEARCH_URL: `${server.url}/search`,
    AGENT_ALLOW_HOSTS: new URL(server.url).host,
  };
  return { server, env, hits, served, answered };
}

export interface ModelCall {
  step: 'plan' | 'followup' | 'extract' | 'write' | 'report';
  model: string;
  prompt: string;
  request: ModelRequest;
  start: number;
  end?: number;
}

export interface Script {
  plan?: (prompt: string, attempt: number) => string;
  followup?: (prompt: string, round: number) => string;
  extract?: (prompt: string) => string;
  write?: (prompt: string) => string;
  /** The writer stops at the output limit. */
  writeCutOff?: boolean;
  /** Milliseconds an extraction call takes. */
  extractDelay?: number;
  /** An extraction waits until this many extractions are in flight at once (at most 5 s). */
  extractBarrier?: number;
}

const stepOf = (system: string): ModelCall['step'] => {
  if (system.includes('You plan research')) return 'plan';
  if (system.includes('You extract facts')) return 'extract';
  if (system.includes('structured research report')) return 'report';
  return 'write';
};

/** A model that answers by step, with its calls (and how many ran at once) on record. */
export function researchModel(script: Script): Provider & { calls: ModelCall[]; maxInFlight: number } {
  const calls: ModelCall[] = [];
  let inFlight = 0;
  let planAttempts = 0;
  let followups = 0;
  const model = {
    name: 'openai-compatible' as const,
    calls,
    maxInFlight: 0,
    async complete(request: ModelRequest) {
      let step = stepOf(request.system ?? '');
      const prompt = request.messages
        .filter((m) => m.role === 'user')
        .map((m) => m.content as string)
        .join('\n');
      if (step === 'plan' && prompt.includes('Facts gathered so far')) step = 'followup';
      const call: ModelCall = { step, model: request.model, prompt, request, start: Date.now() };
      calls.push(call);
      inFlight++;
      model.maxInFlight = Math.max(model.maxInFlight, inFlight);
      try {
        let out: string;
        if (step === 'plan')
          out = script.plan?.(prompt, ++planAttempts) ?? '{"documents": [], "searches": []}';
        else if (step === 'followup')
          out = script.followup?.(prompt, ++followups + 1) ?? '{"gaps": [], "documents": [], "searches": []}';
        else if (step === 'extract') {
          if (script.extractDelay) await new Promise((r) => setTimeout(r, script.extractDelay));
          if (script.extractBarrier) {
            const until = Date.now() + 5000;
            while (model.maxInFlight < script.extractBarrier && Date.now() < until)
              await new Promise((r) => setTimeout(r, 10));
          }
          out = script.extract?.(prompt) ?? `- ${/^Source: (.*)$/m.exec(prompt)?.[1] ?? 'a fact'}`;
        } else out = script.write?.(prompt) ?? 'An answer [1].';
        if (request.signal?.aborted) throw new Error('aborted');
        for (const piece of out.match(/.{1,20}/gs) ?? []) request.onEvent?.({ type: 'text', delta: piece });
        const cut = script.writeCutOff && (step === 'write' || step === 'report');
        return { ...reply([text(out)], cut ? 'length' : undefined), model: request.model };
      } finally {
        inFlight--;
        call.end = Date.now();
      }
    },
  };
  return model;
}

export const stepsOf = (calls: ModelCall[]) => calls.map((c) => c.step);

/** A price in USD per million tokens: cache reads at a tenth of the input, cache writes at the input. */
export const price = (input: number, output: number): Price => ({
  input,
  output,
  cacheRead: input / 10,
  cacheWrite: input,
  source: 'test',
});

/**
 * A model that plans to read every one of `slugs` and bills what the spending cap works from: input at
 * about 4 characters a token, 4,000 output tokens per extraction and 200 for the other steps.
 */
export function billedModel(slugs: string[]) {
  const base = researchModel({
    plan: () => JSON.stringify({ documents: slugs, searches: [] }),
    extractDelay: 5,
  });
  const provider = {
    ...base,
    async complete(request: ModelRequest) {
      const reply = await base.complete(request);
      const chars = (request.system ?? '').length + JSON.stringify(request.messages).length;
      const output = request.system?.includes('You extract facts') ? 4000 : 200;
      return {
        ...reply,
        usage: { input: Math.ceil(chars / 4), output, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
      };
    },
  };
  return { base, provider };
}
