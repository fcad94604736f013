import { readdirSync, readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/run.js';
import { fitToTerminal, wrapNotes } from '../../src/cli/terminal-text.js';
import { NO_PROVIDER_MESSAGE } from '../../src/providers/registry.js';
import { ROOT, runCli, tempDb } from '../support/cli.js';
import { hasScript, terminalAgent } from '../support/pty.js';

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
      // On a pipe commander wraps to 80 columns, and the notes after the options follow it.
      expect(widest(r.stdout), commands[i]).toBeLessThanOrEqual(80);
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

/**
 * Every command's help, as `agent <path> --help` prints it (the text added after the options too), for a
 * terminal `width` columns wide (default: what commander finds, 80 off a terminal).
 */
function everyHelp(width?: number): Array<[string, string]> {
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
      ...(width === undefined ? {} : { getOutHelpWidth: () => width }),
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

/** The widest line's length in columns (escape sequences aside: help has none off a terminal). */
const widest = (text: string): number => Math.max(...text.split('\n').map((l) => [...l].length));
const words = (text: string): string[] => text.split(/\s+/).filter(Boolean);

describe('help and messages fit the terminal', () => {
  it('every help fits 80 columns, with the same words as unwrapped (none split, none lost)', () => {
    const unwrapped = new Map(everyHelp(100_000));
    const helps = everyHelp(80);
    expect(helps.length).toBeGreaterThan(15);
    for (const [path, help] of helps) {
      expect(
        help.split('\n').filter((l) => [...l].length > 80),
        path,
      ).toEqual([]);
      expect(words(help), path).toEqual(words(unwrapped.get(path)!));
    }
    // Wider terminals get longer lines, narrower ones shorter, words whole either way.
    const research = (width: number) => everyHelp(width).find(([path]) => path === 'agent research')![1];
    expect(widest(research(120))).toBeGreaterThan(100);
    expect(words(research(60))).toEqual(words(unwrapped.get('agent research')!));
  });

  it('wraps notes: prose refilled, an example kept whole with its description beside or under it', () => {
    const notes = [
      '',
      'A first line of prose that goes on',
      'and a second one.',
      '',
      'Examples:',
      '  agent cost                 spend per model, all time, every call ever made',
      "  agent research --content ~/wiki 'Who approves a purchase?'   a long example",
      "  agent research --review --site europa.eu --recent 1y 'What changed in EU refund law?'",
    ].join('\n');
    expect(wrapNotes(notes, 60).split('\n')).toEqual([
      '',
      'A first line of prose that goes on and a second one.',
      '',
      'Examples:',
      '  agent cost                 spend per model, all time,',
      '                             every call ever made',
      "  agent research --content ~/wiki 'Who approves a purchase?'",
      '      a long example',
      // An example is never broken: it must paste as one command.
      "  agent research --review --site europa.eu --recent 1y 'What changed in EU refund law?'",
    ]);
    expect(wrapNotes(notes, 0)).toBe(notes);
  });

  it('wraps a message at spaces on a terminal, and leaves it one line on a pipe', () => {
    const message = `agent: ${NO_PROVIDER_MESSAGE}`;
    const lines = fitToTerminal(message, { isTTY: true, columns: 80 }).split('\n');
    expect(lines.length).toBeGreaterThan(2);
    expect(widest(lines.join('\n'))).toBeLessThanOrEqual(80);
    expect(words(lines.join(' '))).toEqual(words(message));
    expect(fitToTerminal(message, { isTTY: false, columns: 80 })).toBe(message);
    expect(fitToTerminal(message, { isTTY: true, columns: 0 })).toBe(message);
  });

  it.skipIf(!hasScript)("agent chat's no-key message breaks at spaces on an 80-column terminal", async () => {
    const chat = terminalAgent(['chat'], { AGENT_DB: tempDb() }, { columns: 80 });
    expect(await chat.exited).toBe(2);
    const out = chat.out().replace(/\r/g, '').trim();
    expect(words(out)).toEqual(words(`agent: ${NO_PROVIDER_MESSAGE}`));
    expect(out.split('\n').length).toBeGreaterThan(2);
    expect(widest(out)).toBeLessThanOrEqual(80);
  });

  it.skipIf(!hasScript)('help on a terminal that reports no width is as wide as on a pipe', async () => {
    const help = terminalAgent(['research', '--help'], { AGENT_DB: tempDb() }, { columns: 0 });
    expect(await help.exited).toBe(0);
    expect(widest(help.out().replace(/\r/g, ''))).toBeLessThanOrEqual(80);
  });
});
