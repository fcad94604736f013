import type { Ora } from 'ora';
import type { ResearchEvent, ResearchResult, ResearchStep } from '../research/pipeline.js';
import type { SourceReport } from '../research/sources.js';
import { formatInt, formatUsd, styleFor } from './style.js';

const STEP_LABEL: Record<ResearchStep, string> = {
  index: 'Indexing local documents',
  plan: 'Planning (small model)',
  sources: 'Collecting sources',
  extract: 'Extracting facts (large model)',
  write: 'Writing the answer (large model)',
  search: 'Searching local documents',
  select: 'Selecting passages',
};

/** Progress on stderr (a spinner per step on a terminal, plain lines otherwise), the answer on stdout. */
export class ResearchRenderer {
  private streamed = false;
  private readonly err = styleFor(process.stderr);

  constructor(
    private readonly spinner: Ora | undefined,
    private readonly streamAnswer: boolean,
  ) {}

  handle = (e: ResearchEvent): void => {
    switch (e.type) {
      case 'step':
        if (this.spinner) {
          if (this.spinner.isSpinning) this.spinner.succeed();
          this.spinner.start(STEP_LABEL[e.name]);
        } else process.stderr.write(this.err.dim(`· ${STEP_LABEL[e.name]}\n`));
        break;
      case 'source':
        this.line(sourceLine(e.report, this.err));
        break;
      case 'notice':
        this.line(this.err.yellow(e.message));
        break;
      case 'text':
        if (!this.streamAnswer) break;
        if (this.spinner?.isSpinning) this.spinner.succeed();
        if (!this.streamed) process.stdout.write('\n');
        this.streamed = true;
        process.stdout.write(e.delta);
        break;
      case 'spend':
        break;
    }
  };

  /** A progress line that does not tear the spinner. */
  private line(text: string): void {
    const spinning = this.spinner?.isSpinning;
    const label = this.spinner?.text;
    if (spinning) this.spinner!.stop();
    process.stderr.write(`${text}\n`);
    if (spinning) this.spinner!.start(label);
  }

  /** Ends the spinner: a tick when the run finished, a cross on the step that failed or was cancelled. */
  finishProgress(ok = true): void {
    if (!this.spinner?.isSpinning) return;
    if (ok) this.spinner.succeed();
    else this.spinner.fail();
  }

  /** Whether the answer text has already been written to stdout. */
  get answerShown(): boolean {
    return this.streamed;
  }
}

export function sourceLine(r: SourceReport, s: ReturnType<typeof styleFor>): string {
  const n = r.n ? `[${r.n}] ` : '';
  switch (r.status) {
    case 'read':
      return s.dim(`  ✓ ${n}${r.label}`);
    case 'snippet':
      return s.yellow(`  ~ ${n}${r.label}: page unreadable, using the search snippet (${r.detail})`);
    case 'failed':
      return s.red(`  ✗ ${r.label}: ${r.detail}`);
    case 'skipped':
      return s.dim(`  - ${r.label}: skipped (${r.detail})`);
  }
}

export function sourceList(result: ResearchResult): string {
  return result.sources.map((s) => `[${s.n}] ${s.title} — ${s.location}`).join('\n');
}

export function citationSummary(result: ResearchResult): string[] {
  const c = result.citations;
  const lines: string[] = [];
  if (c.dangling.length)
    lines.push(`Cites ${c.dangling.map((n) => `[${n}]`).join(', ')}, which name no collected source.`);
  for (const sentence of c.uncited)
    lines.push(`No citation: "${sentence.length > 120 ? `${sentence.slice(0, 119)}…` : sentence}"`);
  const unused = result.sources.filter((s) => !c.cited.includes(s.n)).map((s) => `[${s.n}]`);
  if (result.sources.length === 0) return lines;
  if (lines.length === 0)
    lines.push(`Citations check out: ${c.cited.length} source(s) cited, every statement carries a citation.`);
  if (unused.length) lines.push(`Not cited: ${unused.join(', ')}.`);
  return lines;
}

export function usageLine(result: ResearchResult): string {
  if (result.mode === 'extractive') {
    return 'Extractive mode: no model was used. Set ANTHROPIC_API_KEY or OPENAI_API_KEY (or use --provider ollama) for a written, cited answer.';
  }
  const u = result.usage;
  return (
    `${u.calls} model calls · ${formatInt(u.inputTokens)} input, ${formatInt(u.cacheReadTokens)} cache read, ` +
    `${formatInt(u.outputTokens)} output tokens · ${formatUsd(u.costUsd)}`
  );
}

export function toMarkdown(result: ResearchResult): string {
  const lines = [`# ${result.question}`, ''];
  if (result.mode === 'extractive')
    lines.push('_No model was used: extractive answer from local documents._', '');
  lines.push(result.answer, '', '## Sources', '');
  for (const s of result.sources)
    lines.push(`${s.n}. ${s.title} — ${s.kind === 'web' ? `<${s.location}>` : `\`${s.location}\``}`);
  lines.push('', '## Citation check', '', ...citationSummary(result).map((l) => `- ${l}`), '');
  return lines.join('\n');
}

export function toJson(result: ResearchResult): string {
  return JSON.stringify(
    {
      question: result.question,
      mode: result.mode,
      answer: result.answer,
      sources: result.sources.map((s) => ({ n: s.n, title: s.title, location: s.location, kind: s.kind })),
      citations: result.citations,
      usage: result.usage,
    },
    null,
    2,
  );
}
