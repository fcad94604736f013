import { createRequire } from 'node:module';
import type { MarkdownIt } from 'markdown-it';
import { CITE } from '../../research/checks/claims.js';
import { type Paint, SGR, type Sgr } from './palette.js';

// One line's inline Markdown (emphasis, code, links, images, citations) as terminal text.

// Loaded on first use (not bundled): the commands that import this only to list things never pay for it.
const load = createRequire(import.meta.url);
let md: MarkdownIt | undefined;
const parser = () =>
  (md ??= new (load('markdown-it') as typeof import('markdown-it').default)({ html: false, linkify: true }));

/** `base`: the styles of the block the line belongs to (a heading's colour), kept under every run. */
export function inline(src: string, paint: Paint, base: Sgr[] = []): string {
  const tokens = parser().parseInline(src, {})[0]?.children ?? [];
  const stack: Sgr[] = [];
  const links: Array<{ href: string; text: string; auto: boolean }> = [];
  let out = '';
  const put = (text: string, extra: Sgr[] = []) => {
    const codes = [...base, ...stack, ...extra];
    if (links.length) links[links.length - 1]!.text += text;
    out += paint(codes, text);
  };
  const cites = (text: string) => {
    let last = 0;
    for (const m of text.matchAll(CITE)) {
      put(text.slice(last, m.index));
      put(m[0], [SGR.dim]);
      last = m.index + m[0].length;
    }
    put(text.slice(last));
  };
  for (const t of tokens) {
    switch (t.type) {
      case 'text':
      case 'text_special':
        cites(t.content);
        break;
      case 'strong_open':
        stack.push(SGR.bold);
        break;
      case 'em_open':
        stack.push(SGR.italic);
        break;
      case 's_open':
        stack.push(SGR.strike);
        break;
      case 'strong_close':
      case 'em_close':
      case 's_close':
        stack.pop();
        break;
      case 'code_inline':
        put(t.content, [SGR.yellow]);
        break;
      case 'link_open':
        links.push({
          href: String(t.attrGet('href') ?? ''),
          text: '',
          auto: t.markup === 'autolink' || t.markup === 'linkify',
        });
        stack.push(SGR.underline, SGR.blue);
        break;
      case 'link_close': {
        stack.pop();
        stack.pop();
        const link = links.pop();
        // The address is shown unless the text is the address already.
        if (link && !link.auto && link.href && link.href !== link.text) put(` (${link.href})`, [SGR.dim]);
        break;
      }
      case 'image': {
        const alt = t.children?.map((c) => c.content).join('') || 'image';
        put(`[image: ${alt}]`, [SGR.dim]);
        const src = String(t.attrGet('src') ?? '');
        if (src) put(` (${src})`, [SGR.dim]);
        break;
      }
      case 'softbreak':
        put(' ');
        break;
      case 'hardbreak':
        out += '\n';
        break;
      default:
        if (t.content) put(t.content);
    }
  }
  return out;
}
