import { readdirSync, readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/run.js';
import { ROOT, runCli, tempDb } from '../support/cli.js';

// The bundle loads each command's code only when it runs: help and version must still know every command.
// One file in src/cli/program/ per command (options.ts holds shared parsers).
const commands = readdirSync(`${ROOT}/src/cli/program`)
  .filter((f) => f.endsWith('.ts') && f !== 'options.ts')
  .map((f) => f.replace(/\.ts$/, ''))
  .sort();

const listed = (help: string): string[] =>
  [...(help.split('\nCommands:\n')[1] ?? '').matchAll(/^ {2}(\w[\w-]*)/gm)]
    .map((m) => m[1]!)
    .filter((name) => name !== 'help')
    .sort();

describe('agent --help and --version', () => {
  it('lists every command, each of whose --help works', async () => {
    const top = await runCli(['--help']);
    expect(top.code).toBe(0);
    expect(top.stderr).toBe('');
    expect(listed(top.stdout)).toEqual(commands);

    const env = { AGENT_DB: tempDb() };
    const helps = await Promise.all(commands.map((name) => runCli([name, '--help'], { env })));
    helps.forEach((r, i) => {
      expect(r.code, commands[i]).toBe(0);
      expect(r.stderr, commands[i]).toBe('');
      expect(r.stdout).toMatch(new RegExp(`^Usage: agent ${commands[i]} `));
      expect(r.stdout).toContain('-h, --help');
    });
  });

  it('lists the db subcommands, whose --help works too', async () => {
    const db = await runCli(['db', '--help']);
    expect(listed(db.stdout)).toEqual(['check', 'copy', 'migrate', 'recover', 'status']);
    for (const sub of ['check', 'migrate', 'recover', 'status']) {
      const r = await runCli(['db', sub, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: agent db ${sub} `));
    }
  });

  it('prints the version of package.json, -v too', async () => {
    const { version } = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as { version: string };
    for (const flag of ['--version', '-v']) {
      const r = await runCli([flag]);
      expect(r).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
    }
  });

  it('names an unknown command as a usage error, exit 2', async () => {
    const r = await runCli(['reserch', 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown command 'reserch'.*\n.*Did you mean research\?/s);
    expect(r.stdout).toBe('');
  });
});

/** Every command's help, as `agent <path> --help` prints it (the text added after the options too). */
function everyHelp(): Array<[string, string]> {
  const all: Array<[string, string]> = [];
  const walk = (cmd: Command, path: string) => {
    let out = '';
    cmd.configureOutput({
      writeOut: (s) => {
        out += s;
      },
      writeErr: (s) => {
        out += s;
      },
    });
    cmd.outputHelp();
    all.push([path, out]);
    for (const sub of cmd.commands) walk(sub, `${path} ${sub.name()}`);
  };
  walk(buildProgram(), 'agent');
  return all;
}

/**
 * What pasting `line` into an interactive bash or zsh would do that the example did not mean: `$` that
 * expands (a digit or `$,` after it: "$20,000" becomes "0,000"), a backtick, `!` (history expansion), a
 * `#` or a glob character outside quotes (zsh: "no matches found"), an unclosed quote. Outside quotes,
 * `$NAME` is meant (an environment variable). The example's own description, after a gap of two spaces
 * or more, is not part of the command.
 */
function pasteProblems(line: string): string[] {
  const problems: string[] = [];
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      continue;
    }
    if (!quote && c === ' ' && line[i + 1] === ' ') break; // the description starts
    if (c === quote) quote = undefined;
    else if (!quote && (c === "'" || c === '"')) quote = c;
    else if (c === '\\') i++;
    else if (c === '`') problems.push('a backtick');
    else if (c === '!') problems.push('"!" (history expansion)');
    else if (c === '$' && !/^\$(\{|[A-Z_][A-Z0-9_]*\b)/.test(line.slice(i)))
      problems.push(`"${line.slice(i, i + 4)}…"`);
    else if (!quote && /[#*?[]/.test(c)) problems.push(`an unquoted "${c}"`);
  }
  if (quote) problems.push('an unclosed quote');
  return problems;
}

describe('examples in --help', () => {
  it('finds the problems a paste would meet', () => {
    expect(pasteProblems('agent research "Who approves a $20,000 purchase?"')).not.toEqual([]);
    expect(pasteProblems("agent research 'Who approves a $20,000 purchase?'")).toEqual([]);
    expect(pasteProblems('agent research "Really?!"')).not.toEqual([]);
    expect(pasteProblems('agent research What is it?')).not.toEqual([]);
    expect(pasteProblems('agent --db "$AGENT_DB" cost      spend, all of $1')).toEqual([]);
  });

  it('paste safely into bash and zsh, in every command', () => {
    const examples = everyHelp().flatMap(([path, help]) =>
      help
        .split('\n')
        .filter((l) => /^ {2,}(agent\b|\S.*\| agent\b)/.test(l))
        .map((l) => [path, l.trim()] as const),
    );
    // Every command with examples was looked at (not a filter that matched nothing).
    expect(new Set(examples.map(([path]) => path)).size).toBeGreaterThan(10);
    const unsafe = examples
      .map(([path, l]) => [path, l, pasteProblems(l)] as const)
      .filter(([, , p]) => p.length > 0);
    expect(unsafe).toEqual([]);
  });
});
