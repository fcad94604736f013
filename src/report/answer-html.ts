import MarkdownIt, { type Env, type Token } from 'markdown-it';
import { CITE } from '../research/checks/claims.js';
import { esc } from './escape.js';
import { type RunView, safeUrl, type ViewEvidence } from './run-view.js';
import { normalize } from './sentence.js';

// The answer's Markdown as HTML: markdown-it with raw HTML off (everything from the model is escaped), each
// `[n]` a link to its source carrying a popover of its evidence, flagged sentences marked with their reason.

type Children = Token[];

export interface Heading {
  level: number;
  id: string;
  text: string;
}

interface RenderEnv extends Env {
  view: RunView;
  /** Numbers of the flags whose sentence was found and marked in the text. */
  marked: Set<number>;
  headings: Heading[];
  cites: number;
}

const md = new MarkdownIt({ html: false, linkify: false, typographer: false });
// Links only to the web, mail and this page: markdown-it's default would also let ftp: and the like through.
md.validateLink = (url) => /^(https?:|mailto:|#)/i.test(url.trim());

/** The children's text as a reader sees it, each character mapped back to its token and offset. */
function plainText(children: Children): { text: string; at: Array<[number, number]> } {
  let text = '';
  const at: Array<[number, number]> = [];
  children.forEach((t, i) => {
    const s = t.type === 'text' || t.type === 'code_inline' ? t.content : /break$/.test(t.type) ? ' ' : '';
    for (let j = 0; j < s.length; j++) {
      const ch = /\s/.test(s[j]!) ? ' ' : s[j]!;
      if (ch === ' ' && (text.endsWith(' ') || text === '')) continue;
      text += ch;
      at.push([i, j]);
    }
  });
  return { text, at };
}

function token(
  state: { Token: new (type: string, tag: string, nesting: -1 | 0 | 1) => Token },
  type: string,
  meta: unknown,
  content = '',
): Token {
  const t = new state.Token(type, '', 0);
  t.meta = meta as Token['meta'];
  t.content = content;
  return t;
}

/** Wraps the text of flag `k`'s sentence in marks (one per text token, so tags never cross) and ends it with its marker. */
function markFlag(
  children: Children,
  k: number,
  sentence: string,
  make: (type: string, meta: unknown, content?: string) => Token,
): boolean {
  const { text, at } = plainText(children);
  const start = text.indexOf(sentence);
  if (start < 0 || sentence.length === 0) return false;
  const first = at[start]!;
  const last = at[start + sentence.length - 1]!;
  const out: Children = [];
  children.forEach((t, i) => {
    if (i < first[0] || i > last[0] || (t.type !== 'text' && t.type !== 'code_inline')) {
      out.push(t);
      return;
    }
    const from = i === first[0] ? first[1] : 0;
    const to = i === last[0] ? last[1] + 1 : t.content.length;
    const piece = (content: string) => {
      const p = make(t.type, null, content);
      p.markup = t.markup;
      return p;
    };
    if (from > 0) out.push(piece(t.content.slice(0, from)));
    out.push(make('flag_open', { k }), piece(t.content.slice(from, to)), make('flag_close', { k }));
    // The marker right after its own sentence, before whatever follows it in the same token.
    if (i === last[0]) out.push(make('flag_mark', { k }));
    if (to < t.content.length) out.push(piece(t.content.slice(to)));
  });
  children.splice(0, children.length, ...out);
  return true;
}

/** The evidence for the `j`-th citation of a block: the entry for this number whose sentence holds it. */
function pickEvidence(view: RunView, n: number, block: string, at: number): ViewEvidence | undefined {
  const candidates = view.evidence.filter((e) => e.cite === n);
  let inBlock: ViewEvidence | undefined;
  for (const e of candidates) {
    const s = normalize(e.sentence);
    const start = s ? block.indexOf(s) : -1;
    if (start < 0) continue;
    if (start <= at && at <= start + s.length) return e;
    inBlock ??= e;
  }
  return inBlock ?? candidates[0];
}

function annotate(
  children: Children,
  env: RenderEnv,
  make: (type: string, meta: unknown, content?: string) => Token,
): void {
  env.view.flags.forEach((f, k) => {
    if (!env.marked.has(k) && markFlag(children, k, normalize(f.sentence), make)) env.marked.add(k);
  });
  const block = plainText(children).text;
  const positions = [...block.matchAll(CITE)].map((m) => m.index);
  const known = new Set(env.view.sources.map((s) => s.n));
  let j = 0;
  let inLink = 0;
  const out: Children = [];
  for (const t of children) {
    if (t.type === 'link_open') inLink++;
    if (t.type === 'link_close') inLink--;
    if (t.type !== 'text') {
      out.push(t);
      continue;
    }
    let last = 0;
    for (const m of t.content.matchAll(CITE)) {
      const at = positions[j++] ?? 0;
      if (inLink) continue;
      if (m.index > last) out.push(make('text', null, t.content.slice(last, m.index)));
      for (const n of m[1]!.split(',').map((x: string) => Number(x.trim()))) {
        const evidence = known.has(n) ? pickEvidence(env.view, n, block, at) : undefined;
        out.push(make('cite', { n, k: env.cites++, known: known.has(n), evidence }));
      }
      last = m.index + m[0].length;
    }
    out.push(last === 0 ? t : make('text', null, t.content.slice(last)));
  }
  children.splice(0, children.length, ...out);
}

const slug = (text: string, used: Set<string>) => {
  const base = `s-${
    text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, '-')
      .replace(/^-|-$/g, '') || 'section'
  }`;
  let id = base;
  for (let i = 2; used.has(id); i++) id = `${base}-${i}`;
  used.add(id);
  return id;
};

md.core.ruler.push('agent_evidence', (state) => {
  const env = state.env as unknown as RenderEnv;
  const make = (type: string, meta: unknown, content = '') => token(state, type, meta, content);
  const used = new Set<string>();
  state.tokens.forEach((t, i) => {
    if (t.type === 'heading_open') {
      const text =
        state.tokens[i + 1]?.children
          ?.map((c) => (c.type === 'text' || c.type === 'code_inline' ? c.content : ''))
          .join('') ?? '';
      const id = slug(text, used);
      t.attrSet('id', id);
      env.headings.push({ level: Number(t.tag.slice(1)), id, text });
    }
    if (t.type === 'tr_open') markRow(state.tokens, i, env, make);
    if (t.type === 'inline' && t.children) annotate(t.children, env, make);
  });
});

/** A row's cells as compared with a flagged row: `| a | b [1] |` → `a|b [1]`, emphasis and spacing aside. */
const rowKey = (cells: string[]) =>
  cells
    .map((c) => normalize(c))
    .filter(Boolean)
    .join('|');

/** A flagged table row: its row is marked and its last cell ends with the marker. */
function markRow(
  tokens: Token[],
  at: number,
  env: RenderEnv,
  make: (type: string, meta: unknown, content?: string) => Token,
): void {
  const inlines: Token[] = [];
  for (let j = at + 1; j < tokens.length && tokens[j]!.type !== 'tr_close'; j++)
    if (tokens[j]!.type === 'inline') inlines.push(tokens[j]!);
  const key = rowKey(inlines.map((t) => t.content));
  env.view.flags.forEach((f, k) => {
    if (env.marked.has(k) || !f.sentence.trim().startsWith('|')) return;
    if (
      rowKey(
        f.sentence
          .trim()
          .replace(/^\||\|$/g, '')
          .split('|'),
      ) !== key
    )
      return;
    const last = [...inlines].reverse().find((t) => t.content.trim()) ?? inlines.at(-1);
    if (!last?.children) return;
    tokens[at]!.attrSet('class', 'flag');
    last.children.push(make('flag_mark', { k }));
    env.marked.add(k);
  });
}

const rules = md.renderer.rules;
rules.cite = (tokens, i, _options, e) => {
  const env = e as RenderEnv;
  const { n, k, known, evidence } = tokens[i]!.meta as {
    n: number;
    k: number;
    known: boolean;
    evidence?: ViewEvidence;
  };
  if (!known)
    return `<span class="dangling" title="[${n}] names no collected source">[${n}]<span class="sr"> (names no collected source)</span></span>`;
  return `<span class="c"><a class="cite" href="#src-${n}" id="cite-${k}" aria-describedby="ev-${k}">[${n}]</a><span class="ev" role="tooltip" id="ev-${k}">${evidenceHtml(n, evidence, env.view)}</span></span>`;
};
rules.flag_open = () => '<mark class="flag">';
rules.flag_close = () => '</mark>';
rules.flag_mark = (tokens, i, _options, e) => {
  const env = e as RenderEnv;
  const { k } = tokens[i]!.meta as { k: number };
  const f = env.view.flags[k]!;
  return `<span class="c"><a class="flagmark" href="#flag-${k}" id="flagged-${k}" aria-describedby="fr-${k}">⚑<span class="sr"> flagged</span></a><span class="ev" role="tooltip" id="fr-${k}"><strong>${esc(capital(f.verdict))}.</strong> ${esc(f.reason)}</span></span>`;
};
rules.image = (tokens, i) => {
  const t = tokens[i]!;
  const alt = t.children?.map((c) => c.content).join('') || t.content || 'image';
  const url = safeUrl(String(t.attrGet('src') ?? ''));
  const link = url ? ` <a href="${esc(url)}" rel="noreferrer">${esc(url)}</a>` : '';
  return `<span class="img">[image: ${esc(alt)}]${link}</span>`;
};
const defaultLinkOpen = rules.link_open;
rules.link_open = (tokens, i, options, env, self) => {
  tokens[i]!.attrSet('rel', 'noreferrer');
  return defaultLinkOpen
    ? defaultLinkOpen(tokens, i, options, env, self)
    : self.renderToken(tokens, i, options);
};

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function evidenceHtml(n: number, e: ViewEvidence | undefined, view: RunView): string {
  const src = view.sources.find((s) => s.n === n)!;
  const title = `<span class="ev-title">[${n}] ${esc(src.title)}</span>`;
  if (!e) {
    const url = safeUrl(src.location);
    const where = url
      ? `<a href="${esc(url)}" rel="noreferrer">${esc(url)}</a>`
      : `<code>${esc(src.location)}</code>`;
    return `${title} <span class="ev-none">No quote recorded for this citation.</span> <span class="ev-where">${where}</span>`;
  }
  const url = safeUrl(e.url);
  const where = e.where ? `<span class="ev-where">${esc(e.where)}</span>` : '';
  const link = url ? ` <a href="${esc(url)}" rel="noreferrer">Open at the quote</a>` : '';
  return `${title} <q>${esc(e.quote)}</q> ${where}${link}`;
}

/** The answer as HTML, with the headings found (for a table of contents) and the flags marked in the text. */
export function renderAnswer(view: RunView): { html: string; headings: Heading[]; marked: Set<number> } {
  const env: RenderEnv = { view, marked: new Set(), headings: [], cites: 0 };
  const html = md.render(view.answer, env);
  return { html, headings: env.headings, marked: env.marked };
}
