import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
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
