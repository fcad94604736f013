// The run JSON (`agent research --json`, a saved run's result) read into what the HTML page shows. The
// object may come from an older or newer version, so every field is checked, and evidence and
// verification are optional: a run made before they existed shows what it has.

export interface ViewSource {
  n: number;
  title: string;
  location: string;
  kind?: string;
  read?: string;
  readAt?: string;
}

export interface ViewEvidence {
  sentence: string;
  cite: number;
  quote: string;
  where?: string;
  url?: string;
}

/** A sentence the grounding check or `--verify` found wanting, with the reason in words. */
export interface ViewFlag {
  sentence: string;
  verdict: string;
  reason: string;
}

export interface RunView {
  id?: number;
  question: string;
  answer: string;
  mode: string;
  format: string;
  createdAt?: string;
  models: string[];
  costUsd: number | null;
  truncated: boolean;
  sources: ViewSource[];
  evidence: ViewEvidence[];
  flags: ViewFlag[];
  /** The grounding check's counts, when the run has them (runs before `notChecked` have only `checked`). */
  checks?: { checked: number; notChecked?: number };
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);

/** `extra.models`: what the caller knows of the models when the JSON does not say. */
export function runView(run: Obj, extra: { models?: string[] } = {}): RunView {
  const usage = isObj(run.usage) ? run.usage : {};
  const settings = isObj(run.settings) ? run.settings : {};
  const sources = list(run.sources).flatMap((s): ViewSource[] => {
    const n = num(s.n);
    const title = str(s.title);
    const location = str(s.location);
    if (n === undefined || title === undefined || location === undefined) return [];
    return [{ n, title, location, kind: str(s.kind), read: str(s.read), readAt: str(s.readAt) }];
  });
  const evidence = list(run.evidence).flatMap((e): ViewEvidence[] => {
    const cite = num(e.cite);
    const quote = str(e.quote);
    if (cite === undefined || !quote) return [];
    return [{ sentence: str(e.sentence) ?? '', cite, quote, where: str(e.where), url: str(e.url) }];
  });
  return {
    id: num(run.id),
    question: str(run.question) ?? '',
    answer: str(run.answer) ?? '',
    mode: str(run.mode) ?? 'unknown',
    format: str(run.format) ?? (settings.report === true ? 'report' : 'answer'),
    createdAt: str(run.createdAt),
    models: modelsOf(run) ?? extra.models ?? [],
    costUsd: num(usage.costUsd) ?? null,
    truncated: run.truncated === true,
    sources,
    evidence,
    flags: flagsOf(run),
    checks: checksOf(run),
  };
}

function checksOf(run: Obj): RunView['checks'] {
  const g = isObj(run.grounding) ? run.grounding : {};
  const checked = num(g.checked);
  if (checked === undefined) return undefined;
  const notChecked = Array.isArray(g.notChecked) ? g.notChecked.length : num(g.notChecked);
  return notChecked === undefined ? { checked } : { checked, notChecked };
}

function modelsOf(run: Obj): string[] | undefined {
  const models = Array.isArray(run.models) ? run.models.filter((m) => typeof m === 'string') : [];
  return models.length ? models : undefined;
}

/** `--verify` verdicts other than "supported", then grounding findings for sentences not already listed. */
function flagsOf(run: Obj): ViewFlag[] {
  const flags: ViewFlag[] = [];
  for (const v of list(run.verification)) {
    const sentence = str(v.sentence);
    const verdict = str(v.verdict);
    if (!sentence || !verdict || verdict === 'supported') continue;
    flags.push({ sentence, verdict, reason: str(v.reason) ?? '' });
  }
  const grounding = isObj(run.grounding) ? run.grounding : {};
  for (const u of list(grounding.unsupported)) {
    const sentence = str(u.sentence);
    if (!sentence) continue;
    const missing = Array.isArray(u.missing) ? u.missing.filter((m) => typeof m === 'string') : [];
    const cites = Array.isArray(u.cites) ? u.cites.filter((c) => typeof c === 'number') : [];
    const reason = `${cites.map((c) => `[${c}]`).join('') || 'The cited source'} does not contain: ${missing.join(', ')}`;
    const same = flags.find((f) => f.sentence === sentence);
    if (same) same.reason = same.reason ? `${same.reason} ${reason}.` : `${reason}.`;
    else flags.push({ sentence, verdict: 'not found in source', reason: `${reason}.` });
  }
  return flags;
}

/** How a source was read, in words. */
export function howRead(read: string | undefined): string {
  switch (read) {
    case 'read':
      return 'read in full';
    case 'excerpts':
      return 'the passages that match the question';
    case 'search-text':
      return "the search service's copy of its text";
    case 'snippet':
      return 'only the search snippet';
    default:
      return read ?? '';
  }
}

/** An http(s) URL as a link target; anything else (javascript:, data:, file:, a path) is never a link. */
export function safeUrl(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : undefined;
  } catch {
    return undefined;
  }
}
