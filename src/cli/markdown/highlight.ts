import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import csharp from 'highlight.js/lib/languages/csharp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import python from 'highlight.js/lib/languages/python';
import ruby from 'highlight.js/lib/languages/ruby';
import rust from 'highlight.js/lib/languages/rust';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { type Paint, SGR, type Sgr } from './palette.js';

// Syntax colours for a fenced code block whose language is known, from highlight.js (the languages answers
// mostly show; the rest stay uncoloured). Its HTML output is read back into styled runs of text.

const LANGUAGES = {
  bash,
  c,
  cpp,
  csharp,
  css,
  diff,
  go,
  java,
  javascript,
  json,
  python,
  ruby,
  rust,
  sql,
  typescript,
  xml,
  yaml,
};
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);
hljs.registerAliases(['sh', 'shell', 'zsh', 'console'], { languageName: 'bash' });

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
  const language = lang && hljs.getLanguage(lang) ? lang : undefined;
  if (!paint.color || !language) return code.split('\n');
  const html = hljs.highlight(code, { language, ignoreIllegals: true }).value;
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
