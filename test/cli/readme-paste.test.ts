import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';
import { DOC_PAGES } from '../support/docs.js';

// Every shell example in the README and the pages it links (docs/, bench/README.md) pastes into bash and
// zsh as it reads: no `$` that the shell would expand in a question ("$20,000" in double quotes), no
// backticks or `!` (history) in double quotes, and no `# comment` after a command (zsh, with interactive
// comments off by default, passes it on as words).

/** What a line would do that its reader does not expect, or undefined. */
function unsafe(line: string): string | undefined {
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      continue;
    }
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '`') return 'a backtick runs a command';
    if (quote === '"') {
      if (c === '"') quote = undefined;
      // A variable or a command's output on purpose ("$ADMIN_URL", "$(npm root -g)") is fine; "$20" is not.
      else if (c === '$' && !/[A-Za-z_{(]/.test(line[i + 1] ?? '')) return '`$` before a digit is expanded';
      else if (c === '!') return '`!` is history expansion';
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return 'a `#` comment is passed on by zsh';
  }
  return quote ? 'an unclosed quote' : undefined;
}

it('pastes safely: every shell example in the README and the docs', () => {
  const blocks = DOC_PAGES.flatMap((page) =>
    [...readFileSync(join(ROOT, page), 'utf8').matchAll(/```(?:sh|bash|shell)\n([\s\S]*?)```/g)].map(
      (m) => m[1]!,
    ),
  );
  expect(blocks.length).toBeGreaterThan(10);
  const problems = blocks
    .flatMap((b) => b.split('\n'))
    .filter((l) => l.trim())
    .map((l) => [l, unsafe(l)])
    .filter(([, why]) => why);
  expect(problems).toEqual([]);
  // The rule itself: the examples the issue names would be caught.
  expect(unsafe('agent research "Who approves a $20,000 purchase?"')).toBeDefined();
  expect(unsafe('agent db copy   # optional')).toBeDefined();
  expect(unsafe("agent research 'Who approves a $20,000 purchase?'")).toBeUndefined();
});
