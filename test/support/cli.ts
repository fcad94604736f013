import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = join(ROOT, 'bin', 'agent.js');

export interface CliResult {
  code: number | null;
  /** The signal that ended it, if one did. */
  signal?: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The user `nobody`: permission checks run as it, since root reads and writes every file. */
export const NOBODY = { uid: 65534, gid: 65534 };

let nobodyCanRun: boolean | undefined;
/**
 * Whether the tests run as root and `nobody` can load the project (a checkout under a private folder,
 * root's home say, is closed to it): then a permission check can run as `nobody`. Asked once per file.
 */
export function canRunAsNobody(): boolean {
  nobodyCanRun ??=
    process.getuid?.() === 0 &&
    spawnSync(
      process.execPath,
      ['-e', `require(${JSON.stringify(join(ROOT, 'node_modules', 'better-sqlite3'))})`],
      {
        ...NOBODY,
        stdio: 'ignore',
      },
    ).status === 0;
  return nobodyCanRun;
}

/** A temporary folder holding a fresh database path, for one test. */
export function tempDb(): string {
  return join(mkdtempSync(join(tmpdir(), 'agent-test-')), 'agent.db');
}

/** Empty XDG folders, so no test reads the developer's price file or writes to their database. */
const isolated = mkdtempSync(join(tmpdir(), 'agent-home-'));

/** An environment with no keys and no colours, whatever the developer's shell has set. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    // CI: ora draws no spinner where it is set, and these tests play a user at a terminal.
    if (/^(ANTHROPIC_|OPENAI_|OLLAMA_|AGENT_|BRAVE_|TAVILY_|SEARXNG_|FORCE_COLOR|NO_COLOR|XDG_|CI$)/.test(k))
      continue;
    env[k] = v;
  }
  return {
    ...env,
    XDG_CONFIG_HOME: join(isolated, 'config'),
    XDG_DATA_HOME: join(isolated, 'data'),
    XDG_CACHE_HOME: join(isolated, 'cache'),
    ...extra,
  };
}

/**
 * Runs the built CLI as a user would, with stdin from `input` (a pipe, never a terminal); as another
 * user when `uid`/`gid` are given (root only).
 */
export function runCli(
  args: string[],
  options: { env?: Record<string, string>; input?: string; uid?: number; gid?: number } = {},
): Promise<CliResult> {
  return startCli(args, options).done;
}

/**
 * Starts the built CLI; `child` is there to signal it, `done` settles when it has exited, and `printed`
 * when its stdout holds a text (or it has exited): a wait on output, never on a clock. With `keepStdin`,
 * stdin stays open for `child.stdin.write`.
 */
export function startCli(
  args: string[],
  options: {
    env?: Record<string, string>;
    input?: string;
    uid?: number;
    gid?: number;
    keepStdin?: boolean;
  } = {},
): { child: ChildProcess; done: Promise<CliResult>; printed: (text: string) => Promise<string> } {
  const { uid, gid } = options;
  const child = spawn(process.execPath, [BIN, ...args], {
    env: cleanEnv(options.env),
    cwd: ROOT,
    uid,
    gid,
  });
  let stdout = '';
  let gone = false;
  const waiting = new Set<() => void>();
  const done = new Promise<CliResult>((resolve, reject) => {
    let stderr = '';
    child.stdout!.on('data', (d) => {
      stdout += d;
      for (const check of waiting) check();
    });
    child.stderr!.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      gone = true;
      for (const check of waiting) check();
      resolve({ code, signal, stdout, stderr });
    });
  });
  /** Resolves with stdout so far once it includes `text`, or once the process has exited. */
  const printed = (text: string) =>
    new Promise<string>((resolve) => {
      const check = () => {
        if (!stdout.includes(text) && !gone) return;
        waiting.delete(check);
        resolve(stdout);
      };
      waiting.add(check);
      check();
    });
  if (options.keepStdin) {
    if (options.input) child.stdin!.write(options.input);
  } else child.stdin!.end(options.input ?? '');
  return { child, done, printed };
}
