import { UsageError } from '../../errors.js';
import { type OutFormat, outFormat } from '../../report/format.js';
import { type Evidence, findEvidence } from '../../research/checks/evidence/index.js';
import type { Grounding } from '../../research/checks/grounding/index.js';
import type { Verdict } from '../../research/types.js';
import type { RunSummary, SavedRun, Store } from '../../store/store.js';
import { checkWritable, writeOutput } from '../files.js';
import { renderFor } from '../markdown/index.js';
import { openDb } from '../open-db.js';
import {
  evidenceSummary,
  groundingSummary,
  markdownAnswer,
  markdownSource,
  sourceEntry,
  verificationSummary,
} from '../research-render.js';
import { clean, formatUsd, formatWhen, type Style, styleFor } from '../style.js';
import { resumeCommand } from './research-resume.js';

export interface ReportsOptions {
  limit: number;
  show?: number;
  delete?: number;
  out?: string;
  format?: string;
  raw?: boolean;
  json?: boolean;
  /** Only the runs this person made (AGENT_USER or their user name; '' for runs kept before people). */
  user?: string;
  db?: string;
}

const HOW_TO_LIST = '`agent reports` lists them with their numbers.';

export async function runReports(query: string | undefined, options: ReportsOptions): Promise<void> {
  const one = options.show ?? options.delete;
  if (one !== undefined && query !== undefined)
    throw new UsageError(`--show and --delete take a run number, not search words ("${query}").`);
  if (options.out !== undefined && options.show === undefined)
    throw new UsageError('--out writes one saved run: use it with --show <id>.');
  if (options.out !== undefined) checkWritable(options.out, { json: options.json });
  const format = outFormat(options.out, options.format);

  const store = await openDb(options.db);
  try {
    if (options.delete !== undefined) {
      if (!(await store.runs.delete(options.delete)))
        throw new UsageError(`There is no saved research run #${options.delete}. ${HOW_TO_LIST}`);
      process.stdout.write(`Deleted research run #${options.delete}.\n`);
      return;
    }
    if (options.show !== undefined) {
      const run = await store.runs.get(options.show);
      if (!run) throw new UsageError(`There is no saved research run #${options.show}. ${HOW_TO_LIST}`);
      if (run.status === 'unfinished') {
        await showUnfinished(store, run, options);
        return;
      }
      await show(await withEvidence(store, run), options, format);
      return;
    }
    const search = query?.trim() || undefined;
    const runs = await store.runs.list({ query: search, limit: options.limit, user: options.user });
    if (options.json) {
      process.stdout.write(`${JSON.stringify(runs, null, 2)}\n`);
      return;
    }
    if (runs.length === 0) {
      const by = options.user === undefined ? '' : ` by ${options.user || 'unknown'}`;
      process.stdout.write(
        search
          ? `No saved research runs${by} match "${search}".\n`
          : by
            ? `No research runs saved${by}.\n`
            : 'No research runs saved yet: each `agent research` run is kept when it ends.\n',
      );
      return;
    }
    process.stdout.write(`${listing(runs, process.stdout.columns || 100, styleFor(process.stdout))}\n`);
  } finally {
    await store.close();
  }
}

async function show(run: SavedRun, options: ReportsOptions, format: OutFormat | undefined): Promise<void> {
  // The HTML renderer is loaded only when a page is written.
  const file = async () =>
    format === 'html' ? (await import('../../report/html.js')).renderHtml(runObject(run)) : runMarkdown(run);
  // `--out -`: the file's text on stdout, in place of the usual display.
  if (options.out === '-') {
    await writeOutput('-', await file());
    return;
  }
  if (options.json) {
    // The saved object as `agent research --json` printed it, with the run's number first.
    const out: Record<string, unknown> = { id: run.id, user: run.user, ...run.result };
    out.id = run.id;
    out.user = run.user;
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  } else {
    const s = styleFor(process.stdout);
    const sources = savedSources(run);
    const lines = [
      s.dim(
        `Research run #${run.id} · ${formatWhen(run.createdAt)} · ${run.mode} · ${formatUsd(run.costUsd)}${byline(run)}`,
      ),
      s.bold(clean(run.question)),
      '',
      renderFor(process.stdout, clean(run.answer), options.raw).trimEnd(),
    ];
    if (sources.length > 0)
      lines.push('', s.bold('Sources'), ...sources.map((x) => `[${x.n}] ${sourceEntry(x)}`));
    process.stdout.write(`${lines.join('\n')}\n`);
    if (run.result.truncated === true)
      process.stderr.write(
        styleFor(process.stderr).yellow('\nThis answer was cut off at the output limit: it is incomplete.\n'),
      );
    // The checks as the run showed them: sentences whose numbers or quotes the cited sources lack.
    const grounding = run.result.grounding as Grounding | undefined;
    if (Array.isArray(grounding?.unsupported) && grounding.unsupported.length > 0) {
      const warn = styleFor(process.stderr).yellow;
      process.stderr.write(
        `\n${groundingSummary({ grounding })
          .map((l) => warn(l))
          .join('\n')}\n`,
      );
    }
    const err = styleFor(process.stderr);
    const verified = verificationSummary({
      verification: run.result.verification as Verdict[] | undefined,
      verificationComplete: run.result.verificationComplete as boolean | undefined,
    });
    if (verified.length) process.stderr.write(`\n${verified.map((l) => err.yellow(l)).join('\n')}\n`);
    const evidence = evidenceSummary({ evidence: run.result.evidence as Evidence[] | undefined });
    if (evidence.length) process.stderr.write(`\n${evidence.map((l) => err.dim(l)).join('\n')}\n`);
  }
  if (options.out !== undefined) {
    await writeOutput(options.out, await file());
    process.stderr.write(styleFor(process.stderr).dim(`Written to ${options.out}\n`));
  }
}

/** An unfinished run has no answer yet: what it has so far, and how to continue it. */
async function showUnfinished(store: Store, run: SavedRun, options: ReportsOptions): Promise<void> {
  const hint = resumeCommand(run.id, options.db);
  if (options.out !== undefined)
    throw new UsageError(
      `Research run #${run.id} is unfinished: it has no answer to write yet. Resume it with: ${hint}`,
    );
  const p = await store.progress.load(run.id);
  const plan = p?.plans.get(1);
  const count = (v: unknown) => (Array.isArray(v) ? v.length : 0);
  const sources = p ? [...p.sources.values()] : [];
  const progress = {
    plan: { documents: count(plan?.documents), searches: count(plan?.searches) },
    rounds: p?.plans.size ?? 0,
    sources: sources.length,
    extracted: sources.filter((x) => x.facts !== null).length,
  };
  if (options.json) {
    const { id, question, status, createdAt, costUsd, user } = run;
    process.stdout.write(
      `${JSON.stringify({ id, question, status, createdAt, costUsd, user, progress, resume: hint }, null, 2)}\n`,
    );
    return;
  }
  const s = styleFor(process.stdout);
  const rounds = progress.rounds > 1 ? `, ${progress.rounds} rounds planned` : '';
  process.stdout.write(
    `${[
      s.dim(
        `Research run #${run.id} · ${formatWhen(run.createdAt)} · unfinished · ${formatUsd(run.costUsd)}${byline(run)}`,
      ),
      s.bold(clean(run.question)),
      '',
      `This run ended before its answer. It has its plan (${progress.plan.documents} document(s), ${progress.plan.searches} search(es)${rounds}), ${progress.sources} source(s) read, ${progress.extracted} of them extracted.`,
      `Resume it with: ${hint}`,
    ].join('\n')}\n`,
  );
}

/**
 * A run saved before evidence was part of the result, but with its source texts kept, gets its evidence
 * found again in those texts: never in today's copy of a page or file, which may have changed.
 */
async function withEvidence(store: Store, run: SavedRun): Promise<SavedRun> {
  if (Array.isArray(run.result.evidence)) return run;
  const texts = await store.runs.texts(run.id);
  if (texts.size === 0) return run;
  const sources = savedSources(run).map((s) => ({
    n: s.n,
    title: s.title,
    location: s.location,
    kind: s.kind === 'web' ? ('web' as const) : ('document' as const),
    text: texts.get(s.n) ?? '',
  }));
  return { ...run, result: { ...run.result, evidence: findEvidence(run.answer, sources) } };
}

/** Who made a run, for its header; nothing for a run kept before agent recorded people. */
const byline = (run: RunSummary) => (run.user ? ` · ${run.user}` : '');

/** One aligned line per run; the question takes what is left of the width. */
export function listing(runs: RunSummary[], width: number, s: Style): string {
  const rows = runs.map((r) => [`#${r.id}`, formatWhen(r.createdAt), r.mode, formatUsd(r.costUsd)]);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map((r, k) => {
      const cells = r.map((c, i) => (i === 0 || i === 3 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)));
      const head = cells.join('  ');
      const mark = runs[k]!.status === 'unfinished' ? '(unfinished) ' : '';
      const room = Math.max(20, width - head.length - 3 - mark.length);
      const question = clean(runs[k]!.question).replace(/\s+/g, ' ').trim();
      const cut = question.length > room ? `${question.slice(0, room - 1)}…` : question;
      return `${s.bold(cells[0]!)}  ${s.dim(cells.slice(1).join('  '))}  ${mark && s.yellow(mark)}${cut}`;
    })
    .join('\n');
}

/** The saved object, completed from the run's row where an older version did not write a field. */
function runObject(run: SavedRun): Record<string, unknown> {
  const r = run.result;
  return {
    ...r,
    id: run.id,
    question: run.question,
    answer: run.answer,
    mode: run.mode,
    createdAt: typeof r.createdAt === 'string' ? r.createdAt : run.createdAt,
    usage: typeof r.usage === 'object' && r.usage !== null ? r.usage : { costUsd: run.costUsd },
  };
}

/** The run as a Markdown file: a report keeps its own title; a short answer gets the question as title. */
export function runMarkdown(run: SavedRun): string {
  const lines = markdownAnswer({
    ...run,
    truncated: run.result.truncated === true,
    ownTitle: /^#\s/.test(run.answer),
  });
  const sources = savedSources(run);
  if (sources.length > 0) lines.push('## Sources', '', ...sources.map(markdownSource), '');
  return lines.join('\n');
}

interface SavedSource {
  n: number;
  title: string;
  location: string;
  kind?: string;
  readAt?: string;
}

/** The sources of a saved result; the object is kept as it was written, so each entry is checked. */
function savedSources(run: SavedRun): SavedSource[] {
  const list = run.result.sources;
  if (!Array.isArray(list)) return [];
  return list.filter((x): x is SavedSource => {
    const s = x as Partial<SavedSource> | null;
    return typeof s?.n === 'number' && typeof s.title === 'string' && typeof s.location === 'string';
  });
}
