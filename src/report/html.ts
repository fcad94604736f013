import { formatUsd } from '../money.js';
import { renderAnswer } from './answer-html.js';
import { CSS } from './css.js';
import { esc } from './escape.js';
import { howRead, type RunView, runView, safeUrl } from './run-view.js';
import { sentenceText } from './sentence.js';

// One self-contained HTML file for a research run: inline CSS, no script, a CSP that forbids fetching
// anything, so the page opens the same from disk, an email attachment or offline.

/** Nothing may load or run: styles are inline, images only as data: (the answer's images are shown as text). */
export const CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

const usd = (n: number | null) => (n === null ? 'cost unknown' : formatUsd(n));

/** The run JSON (`agent research --json`, a saved run) as an HTML page. */
export function renderHtml(run: Record<string, unknown>, extra: { models?: string[] } = {}): string {
  const view = runView(run, extra);
  const { html, headings, marked } = renderAnswer(view);
  const ownTitle = headings[0]?.level === 1 && /^\s*#\s/.test(view.answer);
  const title = ownTitle ? headings[0]!.text : view.question;
  const toc = headings.filter((h) => h.level === 2 || h.level === 3);
  const body = [
    header(view, title, ownTitle),
    view.format === 'report' || toc.length >= 3 ? contents(toc) : '',
    view.mode === 'extractive'
      ? '<p class="notice">No model was used: an extractive answer, the passages of the local documents that best match the question.</p>'
      : '',
    // A report's own title is the page's heading already.
    ownTitle ? html.replace(/^<h1[^>]*>[\s\S]*?<\/h1>\n?/, '') : html,
    view.truncated ? '<p class="notice">Cut off at the output limit: this answer is incomplete.</p>' : '',
    sourceList(view),
    flagList(view, marked),
    checkCounts(view),
    `<footer>Written by <code>agent research</code>${view.id !== undefined ? ` · run #${view.id} (<code>agent reports --show ${view.id}</code>)` : ''}.</footer>`,
  ];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>${CSS}</style>
</head>
<body>
<main>
${body.filter(Boolean).join('\n')}
</main>
</body>
</html>
`;
}

function header(view: RunView, title: string, ownTitle: boolean): string {
  const meta = [
    view.createdAt ? `<span>${esc(formatDate(view.createdAt))}</span>` : '',
    `<span>${view.mode === 'extractive' ? 'extractive (no model)' : esc(view.format === 'report' ? 'report' : 'answer')}</span>`,
    view.models.length ? `<span>${esc(view.models.join(', '))}</span>` : '',
    view.mode === 'extractive' ? '' : `<span>${esc(usd(view.costUsd))}</span>`,
    `<span>${view.sources.length} source${view.sources.length === 1 ? '' : 's'}</span>`,
  ];
  return `<header class="run">
<h1>${esc(title)}</h1>
${ownTitle ? `<p class="question">Question: ${esc(view.question)}</p>\n` : ''}<p class="meta">${meta.filter(Boolean).join('')}</p>
</header>`;
}

/** `2026-05-01 14:02 UTC`: the page may be read anywhere, so the time zone is said. */
function formatDate(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function contents(headings: { level: number; id: string; text: string }[]): string {
  if (headings.length === 0) return '';
  const items = headings.map(
    (h) => `<li${h.level === 3 ? ' class="sub"' : ''}><a href="#${esc(h.id)}">${esc(h.text)}</a></li>`,
  );
  return `<nav class="toc" aria-labelledby="toc-title"><h2 id="toc-title">Contents</h2><ul>${items.join('')}</ul></nav>`;
}

function sourceList(view: RunView): string {
  if (view.sources.length === 0) return '';
  const items = view.sources.map((s) => {
    const url = s.kind !== 'document' ? safeUrl(s.location) : undefined;
    const where = url
      ? `<a href="${esc(url)}" rel="noreferrer">${esc(url)}</a>`
      : `<code>${esc(s.location)}</code>`;
    const how = [howRead(s.read), s.readAt ? `read ${esc(s.readAt.slice(0, 10))}` : ''].filter(Boolean);
    return `<li id="src-${s.n}" value="${s.n}"><strong>${esc(s.title)}</strong><br>${where}${how.length ? `<br><span class="src-meta">${esc(how.join(', '))}</span>` : ''}</li>`;
  });
  return `<section aria-labelledby="sources-title"><h2 id="sources-title">Sources</h2><ol class="sources">${items.join('\n')}</ol></section>`;
}

/** How many cited claims the grounding check compared, and how many it could not: silence is not support. */
function checkCounts(view: RunView): string {
  const c = view.checks;
  if (!c || c.notChecked === undefined) return '';
  const flagged = view.flags.length;
  const claims = (n: number) => `${n} cited claim${n === 1 ? '' : 's'}`;
  return `<p class="checks">The grounding check compared the figures, dates and quotations of ${claims(c.checked)}${flagged ? ` (${flagged} flagged above)` : ''}; ${claims(c.notChecked)} had nothing it could compare and ${c.notChecked === 1 ? 'was' : 'were'} not checked.</p>`;
}

function flagList(view: RunView, marked: Set<number>): string {
  if (view.flags.length === 0) return '';
  const items = view.flags.map((f, k) => {
    const back = marked.has(k) ? ` <a href="#flagged-${k}">Show in the text</a>` : '';
    return `<li id="flag-${k}"><q>${esc(sentenceText(f.sentence))}</q><br><strong>${esc(f.verdict)}</strong>: ${esc(f.reason)}${back}</li>`;
  });
  return `<section aria-labelledby="flags-title"><h2 id="flags-title">Flagged sentences</h2><p>The citation checks found these sentences wanting: read their sources before relying on them.</p><ul class="flags">${items.join('\n')}</ul></section>`;
}
