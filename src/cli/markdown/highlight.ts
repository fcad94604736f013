import { createRequire } from 'node:module';
import type { HLJSApi, LanguageFn } from 'highlight.js';
import { type Paint, SGR, type Sgr } from './palette.js';

// Syntax colours for a fenced code block whose language is known, from highlight.js (the languages answers
// mostly show; the rest stay uncoloured). Its HTML output is read back into styled runs of text.

const LANGUAGES = [
  'bash',
  'c',
  'cpp',
  'csharp',
  'css',
  'diff',
  'go',
  'java',
  'javascript',
  'json',
  'python',
  'ruby',
  'rust',
  'sql',
  'typescript',
  'xml',
  'yaml',
];

// Loaded when the first code block with a language closes (not bundled: most output has none).
const load = createRequire(import.meta.url);
let loaded: HLJSApi | undefined;
function hljs(): HLJSApi {
  if (loaded) return loaded;
  const api = load('highlight.js/lib/core') as HLJSApi;
  for (const name of LANGUAGES)
    api.registerLanguage(name, load(`highlight.js/lib/languages/${name}`) as LanguageFn);
  api.registerAliases(['sh', 'shell', 'zsh', 'console'], { languageName: 'bash' });
  loaded = api;
  return api;
}

const COLOURS: Record<string, Sgr> = {
  keyword: SGR.magenta,
  built_in: SGR.cyan,
  type: SGR.cyan,
  literal: SGR.yellow,
  number: SGR.yellow,
  string: SGR.green,
  regexp: SGR.red,
  comment: SGR.grey,
  quote: SGR.grey,
  meta: SGR.grey,
  title: SGR.blue,
  'title.function': SGR.blue,
  'title.class': SGR.cyan,
  attr: SGR.cyan,
  attribute: SGR.cyan,
  property: SGR.cyan,
  tag: SGR.blue,
  name: SGR.blue,
  addition: SGR.green,
  deletion: SGR.red,
  symbol: SGR.yellow,
  variable: SGR.red,
  params: '',
};

const ENTITY: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#x27;': "'",
  '&#39;': "'",
};
const decode = (s: string) => s.replace(/&(?:amp|lt|gt|quot|#x27|#39);/g, (e) => ENTITY[e]!);

/** The code's lines, coloured when its language is known and colour is on; as written otherwise. */
export function highlight(code: string, lang: string, paint: Paint): string[] {
  if (!paint.color || !lang) return code.split('\n');
  const api = hljs();
  if (!api.getLanguage(lang)) return code.split('\n');
  const html = api.highlight(code, { language: lang, ignoreIllegals: true }).value;
  const lines: string[] = [''];
  const stack: Sgr[] = [];
  for (const m of html.matchAll(/<span class="hljs-([\w.-]+)[^"]*">|<\/span>|[^<]+/g)) {
    if (m[1] !== undefined) stack.push(COLOURS[m[1]] ?? COLOURS[m[1].split('.')[0]!] ?? '');
    else if (m[0] === '</span>') stack.pop();
    else {
      const colour = [...stack].reverse().find(Boolean);
      decode(m[0])
        .split('\n')
        .forEach((piece, i) => {
          if (i > 0) lines.push('');
          lines[lines.length - 1] += paint(colour ? [colour] : [], piece);
        });
    }
  }
  return lines;
}
