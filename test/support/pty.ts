import { spawn, spawnSync } from 'node:child_process';
import { expect } from 'vitest';
import { BIN, cleanEnv, ROOT } from './cli.js';

// `agent` on a real pseudo-terminal, through util-linux `script`.

export const hasScript = spawnSync('script', ['--version']).status === 0;

/** `agent chat <args>` on a terminal: what it printed so far, keys to type, and its exit code. */
export const terminalChat = (args: string[], env: Record<string, string>) =>
  terminalAgent(['chat', ...args], env);

/** Quotes a word for sh: `script -c` hands the command line to the shell. */
export const shellWord = (word: string): string =>
  /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;

export interface TerminalOptions {
  /**
   * The terminal's size, set with stty before the program starts. Without it the pty reports none (0×0),
   * as a bare pty does: no spinner is drawn there, and nothing is wrapped.
   */
  columns?: number;
  rows?: number;
  /** A shell fragment run first, in the same terminal (with `columns`): `(…) &` to act while it runs. */
  setup?: string;
}

/** `agent <args>` on a terminal (args as the shell reads them: quote what has spaces, or use shellWord). */
export function terminalAgent(args: string[], env: Record<string, string>, options: TerminalOptions = {}) {
  const agent = `${process.execPath} ${BIN} ${args.join(' ')}`;
  const command =
    options.columns === undefined
      ? agent
      : `stty cols ${options.columns} rows ${options.rows ?? 30} && { ${options.setup ?? ''} exec ${agent}; }`;
  const child = spawn('script', ['-qefc', command, '/dev/null'], {
    cwd: ROOT,
    env: cleanEnv({ COLUMNS: '100', LINES: '30', TERM: 'xterm', ...env }),
  });
  let out = '';
  const watchers = new Set<() => void>();
  child.stdout.on('data', (d) => {
    out += d;
    for (const check of watchers) check();
  });
  let closed = false;
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      closed = true;
      for (const check of watchers) check();
      resolve(code);
    }),
  );
  /**
   * Waits until the output after `from` matches, and asserts that it does. It waits on output, not on a
   * clock: the program's exit ends a wait that is not met, and so does `limitMs`, a net (far above any
   * wait on a loaded machine) that makes a missing line fail with the output shown, not a test timeout.
   */
  const waitFor = async (pattern: RegExp, from = 0, limitMs = 120_000) => {
    await new Promise<void>((resolve) => {
      const check = () => {
        if (!pattern.test(out.slice(from)) && !closed) return;
        watchers.delete(check);
        clearTimeout(net);
        resolve();
      };
      const net = setTimeout(() => {
        watchers.delete(check);
        resolve();
      }, limitMs);
      watchers.add(check);
      check();
    });
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
