import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/run.js';

// A command line that names its command defines that command alone (src/cli/run.ts): the same command,
// with the same help, as in the whole program; anything else defines every command.
const names = (program: Command) => program.commands.map((c) => c.name());
const line = (...args: string[]) => ['node', 'agent', ...args];
const every = names(buildProgram());

describe('buildProgram', () => {
  it('defines only the command a command line names, after --db and its value', () => {
    for (const args of [
      ['cost'],
      ['cost', '--help'],
      ['--db', 'x.db', 'cost'],
      ['--db=x.db', 'cost', '--json'],
    ])
      expect(names(buildProgram(line(...args))), args.join(' ')).toEqual(['cost']);
    expect(names(buildProgram(line('db', 'status')))).toEqual(['db']);
  });

  it('defines no command for --version first', () => {
    expect(names(buildProgram(line('--version')))).toEqual([]);
    expect(names(buildProgram(line('-v', 'cost')))).toEqual([]);
  });

  it('defines every command for help, a mistyped name, an unknown option first, or nothing', () => {
    expect(every).toHaveLength(11);
    for (const args of [
      [],
      ['--help'],
      ['help', 'cost'],
      ['cots'],
      ['--bogus', 'cost'],
      ['--db'],
      ['--db', 'cost'],
    ])
      expect(names(buildProgram(line(...args))), args.join(' ')).toEqual(every);
  });

  it('gives a command alone the same help as in the whole program', () => {
    const whole = buildProgram();
    for (const name of every) {
      const alone = buildProgram(line(name)).commands[0]!;
      const within = whole.commands.find((c) => c.name() === name)!;
      expect(alone.helpInformation(), name).toBe(within.helpInformation());
      expect(alone.commands.map((c) => c.helpInformation())).toEqual(
        within.commands.map((c) => c.helpInformation()),
      );
    }
  });
});
