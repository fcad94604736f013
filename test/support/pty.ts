import { spawn, spawnSync } from 'node:child_process';
import { expect } from 'vitest';
import { BIN, cleanEnv, ROOT } from './cli.js';

// `agent chat` on a real pseudo-terminal, through util-linux `script`.

export const hasScript = spawnSync('script', ['--version']).status === 0;

/** `agent chat <args>` on a terminal: what it printed so far, keys to type, and its exit code. */
export const terminalChat = (args: string[], env: Record<string, string>) =>
  terminalAgent(['chat', ...args], env);

/** `agent <args>` on a terminal (args as the shell reads them: quote what has spaces). */
export function terminalAgent(args: string[], env: Record<string, string>) {
  const child = spawn('script', ['-qefc', `${process.execPath} ${BIN} ${args.join(' ')}`, '/dev/null'], {
    cwd: ROOT,
    env: cleanEnv({ COLUMNS: '100', LINES: '30', TERM: 'xterm', ...env }),
  });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  /** Waits (up to 5 s) until the output after `from` matches, and asserts that it does. */
  const waitFor = async (pattern: RegExp, from = 0) => {
    for (let i = 0; i < 200 && !pattern.test(out.slice(from)); i++)
      await new Promise((r) => setTimeout(r, 25));
    expect(out.slice(from)).toMatch(pattern);
  };
  return {
    exited,
    waitFor,
    out: () => out,
    mark: () => out.length,
    type: (keys: string) => child.stdin.write(keys),
    kill: () => child.kill(),
  };
}
