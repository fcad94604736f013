import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/run.js';
import { ROOT } from '../support/cli.js';
import { DOC_PAGES } from '../support/docs.js';

// The README links a page per capability (docs/, bench/README.md). Every link between them leads
// somewhere, and the configuration reference lists every command's flags and every variable agent reads,
// so a flag or variable cannot be added without a line saying what it does.

/** Pages linked from the README that another branch is writing; checked once they exist. */
const PENDING = new Set(['docs/local-models.md']);

const read = (page: string) => readFileSync(join(ROOT, page), 'utf8');

/** The page without its fenced code blocks (a `#` line in a shell example is not a heading). */
const prose = (text: string) => text.replace(/^```[\s\S]*?^```/gm, '');

/** GitHub's anchor for a heading: lower case, punctuation gone, spaces as hyphens; repeats numbered. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const [, heading] of prose(text).matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = heading!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}

describe('the documentation', () => {
  it('links only pages and headings that exist', () => {
    const problems: string[] = [];
    let links = 0;
    for (const page of DOC_PAGES) {
      // Inline code is not a link (`[text](url)` says how links are written).
      const text = prose(read(page)).replace(/`[^`\n]*`/g, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue; // https:, mailto:
        links++;
        const [file, anchor] = target!.split('#') as [string, string | undefined];
        const path = file ? normalize(join(dirname(page), file)) : page;
        if (!existsSync(join(ROOT, path))) {
          if (!PENDING.has(path)) problems.push(`${page}: ${target} (no ${path})`);
          continue;
        }
        if (anchor !== undefined && statSync(join(ROOT, path)).isFile() && !anchors(read(path)).has(anchor))
          problems.push(`${page}: ${target} (no heading #${anchor} in ${path})`);
      }
    }
    expect(links).toBeGreaterThan(50);
    expect(problems).toEqual([]);
  });

  it('has the README link every page of docs/', () => {
    const readme = read('README.md');
    const pages = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md'));
    expect(pages.filter((f) => !readme.includes(`(docs/${f})`))).toEqual([]);
    for (const pending of PENDING) expect(readme).toContain(`(${pending})`);
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
  });

  it("lists every command's flags in the configuration reference", () => {
    const reference = read('docs/configuration.md');
    const missing: string[] = [];
    const walk = (cmd: Command, path: string) => {
      const section = reference.split(`\n### \`${path}\``)[1]?.split('\n### ')[0];
      if (section === undefined) missing.push(`${path} (no section)`);
      for (const option of cmd.options)
        if (!section?.includes(`\`${option.flags}\``)) missing.push(`${path} ${option.flags}`);
      for (const sub of cmd.commands) walk(sub, `${path} ${sub.name()}`);
    };
    const program = buildProgram();
    for (const option of program.options)
      if (!reference.includes(`\`${option.flags}\``)) missing.push(`agent ${option.flags}`);
    for (const sub of program.commands) walk(sub, `agent ${sub.name()}`);
    expect(missing).toEqual([]);
  });

  it('names every AGENT_ variable the code reads in the configuration reference', () => {
    const reference = read('docs/configuration.md');
    const variables = new Set<string>();
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name.endsWith('.ts'))
          for (const [name] of readFileSync(path, 'utf8').matchAll(/\bAGENT_[A-Z][A-Z0-9_]*[A-Z0-9]\b/g))
            variables.add(name);
      }
    };
    walk(join(ROOT, 'src'));
    expect(variables.size).toBeGreaterThan(20);
    expect([...variables].filter((v) => !reference.includes(`\`${v}\``)).sort()).toEqual([]);
  });
});
