import type { Ora } from 'ora';
import { sentenceText } from '../report/sentence.js';
import { type Evidence, unsupportedClaims } from '../research/checks/evidence/index.js';
import type { NotChecked } from '../research/checks/grounding/index.js';
import type { ResearchEvent, ResearchResult, ResearchStep } from '../research/pipeline.js';
import { resultJson } from '../research/result-json.js';
import { timingsLine } from '../research/run/timings.js';
import type { Source, SourceReport } from '../research/sources.js';
import { terminalMarkdown } from './markdown/index.js';
import { PartialLine } from './markdown/partial-line.js';
import { clean, formatInt, formatUsd, streamCleaner, styleFor } from './style.js';

const STEP_LABEL: Record<ResearchStep, string> = {
  index: 'Indexing local documents',
  embed: 'Embedding passages for hybrid search',
  plan: 'Planning (small model)',
  review: 'Reviewing the plan',
  sources: 'Collecting sources, extracting facts as they arrive (large model)',
  extract: 'Extracting facts (large model)',
  followup: 'Looking for gaps (small model)',
  write: 'Writing the answer (large model)',
  report: 'Writing the report (large model)',
  search: 'Searching local documents',
  select: 'Selecting passages',
  verify: 'Checking each cited claim against its evidence (small model)',
};

/** Rounds after the first are named, so a deep run shows where it is. */
const stepLabel = (name: ResearchStep, round?: number) =>
  round && round > 1 ? `Round ${round} · ${STEP_LABEL[name]}` : STEP_LABEL[name];

/** Progress on stderr (a spinner per step on a terminal, plain lines otherwise), the answer on stdout. */
export class ResearchRenderer {
  private streamed = false;
  private readonly cleanStream = streamCleaner();
  private readonly err = styleFor(process.stderr);
  private readonly markdown;
  /** The answer's line being written, shown as it comes until the renderer draws it (a terminal only). */
  private readonly partialLine = new PartialLine(process.stdout);

  /** `raw`: keep the streamed answer's Markdown as it is on a terminal (otherwise rendered line by line). */
  constructor(
    private readonly spinner: Ora | undefined,
    private readonly streamAnswer: boolean,
    raw?: boolean,
  ) {
    this.markdown = streamAnswer ? terminalMarkdown(process.stdout, raw) : undefined;
  }

  handle = (e: ResearchEvent): void => {
    switch (e.type) {
      case 'step':
        // The review draws its own screen: the step before it is done, and no spinner runs under it.
        if (e.name === 'review') {
          if (this.spinner?.isSpinning) this.spinner.succeed();
          break;
        }
        if (this.spinner) {
          if (this.spinner.isSpinning) this.spinner.succeed();
          this.spinner.start(stepLabel(e.name, e.round));
        } else process.stderr.write(this.err.dim(`· ${stepLabel(e.name, e.round)}\n`));
        break;
      case 'source':
        this.line(sourceLine(e.report, this.err));
        break;
      case 'notice':
        this.line(this.err.yellow(oneLine(e.message)));
        break;
      case 'text':
        if (!this.streamAnswer) break;
        if (this.spinner?.isSpinning) this.spinner.succeed();
        if (!this.streamed) process.stdout.write('\n');
        this.streamed = true;
        {
          const text = this.cleanStream(e.delta);
          if (!this.markdown) {
            process.stdout.write(text);
            break;
          }
          const lines = this.markdown.push(text);
          if (lines) {
            this.partialLine.clear();
            process.stdout.write(lines);
          }
          const pending = this.markdown.pending();
          if (pending) this.partialLine.show(pending);
          else this.partialLine.clear();
        }
        break;
      case 'spend':
        break;
      case 'progress':
        // Only a terminal shows it: a long folder's embedding, counted up.
        if (this.spinner?.isSpinning)
          this.spinner.text = `${STEP_LABEL.embed} (${formatInt(e.done)} of ${formatInt(e.total)})`;
        break;
    }
  };

  /** A progress line that does not tear the spinner. */
  private line(text: string): void {
    this.partialLine.clear();
    const spinning = this.spinner?.isSpinning;
    const label = this.spinner?.text;
    if (spinning) this.spinner!.stop();
    process.stderr.write(`${text}\n`);
    if (spinning) this.spinner!.start(label);
  }

  /** Ends the spinner: a tick when the run finished, a cross on the step that failed or was cancelled. */
  finishProgress(ok = true): void {
    this.partialLine.clear();
    if (this.streamed && this.markdown) process.stdout.write(this.markdown.end());
    if (!this.spinner?.isSpinning) return;
    if (ok) this.spinner.succeed();
    else this.spinner.fail();
  }

  /** Whether the answer text has already been written to stdout. */
  get answerShown(): boolean {
    return this.streamed;
  }
}

export function sourceLine(report: SourceReport, s: ReturnType<typeof styleFor>): string {
  // "http://x/y answered HTTP 404." under the line for http://x/y: the URL once is enough.
  const detail = report.detail?.startsWith(report.label)
    ? report.detail.slice(report.label.length).trim().replace(/\.$/, '')
    : report.detail;
  const r = { ...report, label: oneLine(report.label), detail: detail && clean(detail) };
  const n = r.n ? `[${r.n}] ` : '';
  // Facts already extracted by an earlier run: nothing paid for this source.
  const cached = r.cached ? ' · cached' : '';
  switch (r.status) {
    case 'read':
      return s.dim(`  ✓ ${n}${r.label}${r.partial ? ` (${r.partial})` : ''}${cached}`);
    case 'excerpts':
      return s.dim(
        `  ✓ ${n}${r.label} (long: the passages that match the question${r.partial ? `; ${r.partial}` : ''})${cached}`,
      );
    case 'search-text':
      return s.yellow(
        `  ~ ${n}${r.label}: page unreadable, using the search service's copy of its text (${r.detail})${cached}`,
      );
    case 'snippet':
      return s.yellow(`  ~ ${n}${r.label}: page unreadable, using the search snippet (${r.detail})${cached}`);
    case 'failed':
      return s.red(`  ✗ ${r.label}: ${r.detail}`);
    case 'skipped':
      return s.dim(`  - ${r.label}: skipped (${r.detail})`);
    case 'filtered':
      return s.dim(`  - ${r.label}: ${r.detail}`);
  }
}

const ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * Text kept to one printable line: line breaks, tabs, escape sequences and other control characters
 * are shown escaped (`\n`, `\x1b[31m`), never acted on, so a file named with a newline can
 * neither break a Sources line or a notice in two nor hide which file it is.
 */
export function oneLine(text: string): string {
  return text.replace(
    /[\x00-\x1f\x7f-\x9f]/g,
    (c) => ESCAPES[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
}

/** `title — location`, and for web pages the day they were read. */
export function sourceEntry(src: Pick<Source, 'title' | 'location' | 'readAt'>): string {
  const read = src.readAt ? ` (read ${src.readAt.slice(0, 10)})` : '';
  return oneLine(`${src.title} — ${src.location}${read}`);
}

export function sourceList(result: Pick<ResearchResult, 'sources'>): string {
  return result.sources.map((s) => `[${s.n}] ${sourceEntry(s)}`).join('\n');
}

const clip = (text: string, max = 120) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export function citationSummary(result: ResearchResult): string[] {
  const c = result.citations;
  const lines: string[] = [];
  if (c.dangling.length)
    lines.push(`Cites ${c.dangling.map((n) => `[${n}]`).join(', ')}, which name no collected source.`);
  for (const sentence of c.uncited) lines.push(`No citation: "${clip(sentenceText(sentence))}"`);
  const unused = result.sources.filter((s) => !c.cited.includes(s.n)).map((s) => `[${s.n}]`);
  if (result.sources.length === 0) return lines;
  if (lines.length === 0)
    lines.push(`Citations check out: ${c.cited.length} source(s) cited, every statement carries a citation.`);
  if (unused.length) lines.push(`Not cited: ${unused.join(', ')}.`);
  return lines;
}

/** Sentences whose numbers or quotes are not in the sources they cite; empty when all are grounded. */
export function groundingSummary(result: Pick<ResearchResult, 'grounding'>): string[] {
  const g = result.grounding;
  // Runs saved before the entries kept a count; runs before that, nothing.
  const notChecked: unknown = g.notChecked;
  const count = Array.isArray(notChecked)
    ? notChecked.length
    : typeof notChecked === 'number'
      ? notChecked
      : 0;
  const unread = Array.isArray(notChecked)
    ? notChecked.flatMap((c: NotChecked) => (c.source ?? []).map((s) => `[${s.n}] "${s.text}"`))
    : [];
  const unchecked =
    count > 0
      ? `${count} cited claim${count === 1 ? '' : 's'} had nothing the grounding check could compare, or a figure it could not read (not checked)${unread.length ? `; source text it could not read: ${[...new Set(unread)].slice(0, 5).join(', ')}` : ''}.`
      : undefined;
  if (g.unsupported.length === 0) return unchecked ? [unchecked] : [];
  return [
    `Not found in the cited source (${g.unsupported.length} of ${g.checked} checked claim(s)):`,
    ...g.unsupported.map(
      (u) =>
        `  "${clip(sentenceText(u.sentence))}" — ${u.cites.map((n) => `[${n}]`).join('')} does not contain: ${u.missing.join(', ')}`,
    ),
    ...(unchecked ? [unchecked] : []),
  ];
}

/**
 * Cited sentences whose cited sources hold nothing close to them: weaker than a missing number (the
 * sentence may say it in other words), so it is said as such.
 */
export function evidenceSummary(result: { evidence?: Evidence[] }): string[] {
  const none = unsupportedClaims(result.evidence ?? []);
  if (none.length === 0) return [];
  const claims = new Set((result.evidence ?? []).map((e) => e.sentence)).size;
  return [
    `No supporting passage found in the cited source (${none.length} of ${claims} cited sentence(s)):`,
    ...none.map((c) => `  "${clip(c.sentence)}" — nothing close in ${c.cites.map((n) => `[${n}]`).join('')}`),
  ];
}

/** With --verify: the claims the model found partly or not supported, and whether every claim was judged. */
export function verificationSummary(
  result: Pick<ResearchResult, 'verification' | 'verificationComplete'>,
): string[] {
  if (!result.verification) return [];
  const doubtful = result.verification.filter((v) => v.verdict !== 'supported');
  const lines: string[] = [];
  if (doubtful.length)
    lines.push(
      `Not supported by the cited passages, says the model check (${doubtful.length} of ${result.verification.length}):`,
      ...doubtful.map(
        (v) => `  ${v.verdict}: "${clip(v.sentence)}" — ${clip(v.reason || 'no reason given')}`,
      ),
    );
  if (result.verificationComplete === false)
    lines.push(
      `The model check is incomplete: ${result.verification.length} claim(s) judged; the rest got no usable verdict.`,
    );
  else if (!doubtful.length)
    lines.push(
      `Model check: all ${result.verification.length} cited claim(s) are supported by their passages.`,
    );
  return lines;
}

/**
 * The run's calls, tokens and cost. In extractive mode: that no language model wrote the answer (and what
 * embedding calls retrieval made), with how to get a written answer unless --extractive was asked for.
 */
export function usageLine(result: ResearchResult, askedExtractive = false): string {
  if (result.mode === 'extractive') {
    const u = result.usage;
    const head = u.calls
      ? `Extractive mode: no language model was used; ${u.calls} embedding call${u.calls === 1 ? '' : 's'}, cost ${formatUsd(u.costUsd)}.`
      : 'Extractive mode: no model was used.';
    return askedExtractive
      ? head
      : `${head} Set ANTHROPIC_API_KEY or OPENAI_API_KEY (or use --provider ollama) for a written, cited answer.`;
  }
  const u = result.usage;
  const rounds = result.rounds > 1 ? ` · ${result.rounds} rounds` : '';
  const timed = result.timings ? ` · ${timingsLine(result.timings)}` : '';
  return (
    `${u.calls} model calls${rounds} · ${formatInt(u.inputTokens)} input, ${formatInt(u.cacheReadTokens)} cache read, ` +
    `${formatInt(u.outputTokens)} output tokens · ${formatUsd(u.costUsd)}` +
    (result.budget ? ` of the ${formatUsd(result.budget.limitUsd)} cap` : '') +
    timed
  );
}

/**
 * The head of a run as Markdown, for `research --out` and `reports --show --out`: the question as title
 * unless the answer has its own, the answer, and what a reader must know of it.
 */
export function markdownAnswer(o: {
  question: string;
  mode: string;
  answer: string;
  truncated: boolean;
  ownTitle: boolean;
}): string[] {
  const lines: string[] = [];
  if (!o.ownTitle) lines.push(`# ${o.question}`, '');
  if (o.mode === 'extractive') lines.push('_No model was used: extractive answer from local documents._', '');
  lines.push(o.answer, '');
  if (o.truncated) lines.push('_Cut off at the output limit: this is incomplete._', '');
  return lines;
}

/** A source as a Markdown list item: a path in code, a URL in angle brackets with the day it was read. */
export function markdownSource(
  s: Pick<Source, 'n' | 'title' | 'location' | 'readAt'> & { kind?: string },
): string {
  const where = s.kind === 'web' ? `<${s.location}>` : `\`${oneLine(s.location)}\``;
  const read = s.readAt ? `, read ${s.readAt.slice(0, 10)}` : '';
  return `${s.n}. ${s.title} — ${where}${read}`;
}

/** The run as a Markdown file: a report keeps its own title; a short answer gets the question as title. */
export function toMarkdown(result: ResearchResult): string {
  const lines = markdownAnswer({
    ...result,
    ownTitle: result.settings.report && /^#\s/.test(result.answer),
  });
  lines.push('## Sources', '', ...result.sources.map(markdownSource));
  const checks = [
    ...citationSummary(result),
    ...groundingSummary(result),
    ...evidenceSummary(result),
    ...verificationSummary(result),
  ];
  lines.push(
    '',
    '## Citation check',
    '',
    ...checks.map((l) => (l.startsWith('  ') ? `  - ${l.trim()}` : `- ${l}`)),
    '',
  );
  return lines.join('\n');
}

export function toJson(result: ResearchResult): string {
  return JSON.stringify(resultJson(result), null, 2);
}
