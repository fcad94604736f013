import { randomUUID } from 'node:crypto';
import { createInterface, type Interface } from 'node:readline';
import { ChatSession } from '../../chat/session.js';
import { chatSystemPrompt } from '../../chat/system-prompt.js';
import { AbortedError, AgentError, ConfigError, errorMessage } from '../../errors.js';
import { loadUserPrices } from '../../providers/price-file.js';
import {
  createProvider,
  NO_PROVIDER_MESSAGE,
  resolveModel,
  resolveProviderName,
} from '../../providers/registry.js';
import { runTotals } from '../../store/ledger.js';
import { type Db, openStore } from '../../store/open.js';
import { buildChatTools } from '../../tools/index.js';
import type { ToolCall } from '../../types.js';
import { TurnRenderer } from '../chat-render.js';
import { formatInt, formatUsd, styleFor } from '../style.js';

export interface ChatOptions {
  provider?: string;
  model?: string;
  maxTurns: number;
  yes?: boolean;
  db?: string;
}

const HELP = `Commands:
  /help     this list
  /cost     tokens and dollars spent in this session
  /clear    forget the conversation so far
  /exit     leave (also Ctrl-D, or Ctrl-C at an empty prompt)
Ctrl-C while the model is working cancels that turn; the chat stays open.`;

interface Chat {
  session: ChatSession;
  db: Db;
  options: ChatOptions;
  label: string;
}

export async function runChat(options: ChatOptions): Promise<void> {
  const providerName = resolveProviderName(options.provider);
  if (!providerName) throw new ConfigError(NO_PROVIDER_MESSAGE);
  const model = resolveModel(providerName, 'chat', options.model);
  const userPrices = loadUserPrices();
  const provider = await createProvider(providerName);
  const db = openStore(options.db);
  try {
    const registry = await buildChatTools(db);
    const session = new ChatSession({
      provider,
      model,
      system: chatSystemPrompt(registry.names),
      registry,
      maxTurns: options.maxTurns,
      autoApprove: options.yes,
      db,
      runId: randomUUID(),
      userPrices,
    });
    const chat: Chat = { session, db, options, label: `${providerName} ${model}` };
    if (process.stdin.isTTY) await interactive(chat);
    else await piped(chat);
  } finally {
    db.close();
  }
}

function costLine(chat: Chat): string {
  const t = runTotals(chat.db, chat.session.runId);
  const cost =
    t.unpricedCalls === 0
      ? formatUsd(t.costUsd ?? 0)
      : t.unpricedCalls === t.calls
        ? 'unknown'
        : `${formatUsd(t.costUsd)} + unknown`;
  return (
    `This session: ${t.calls} model call(s); input ${formatInt(t.inputTokens)}, cache read ${formatInt(t.cacheReadTokens)}, ` +
    `cache write ${formatInt(t.cacheWriteTokens)}, output ${formatInt(t.outputTokens)} tokens; ${cost}.`
  );
}

/** Slash commands; returns false when the chat should end. */
function slash(chat: Chat, line: string, write: (s: string) => void): boolean {
  const [command] = line.split(/\s+/, 1);
  switch (command) {
    case '/exit':
    case '/quit':
      return false;
    case '/help':
      write(HELP);
      break;
    case '/cost':
      write(costLine(chat));
      break;
    case '/clear':
      chat.session.clear();
      write('Conversation cleared.');
      break;
    default:
      write(`Unknown command ${command}. Try /help.`);
  }
  return true;
}

async function interactive(chat: Chat): Promise<void> {
  const rl = createInterface({
    input: process.stdin,
    output: process.stdout,
    terminal: true,
    historySize: 200,
  });
  const s = styleFor(process.stdout);
  const { default: ora } = await import('ora');
  const spinner = process.stderr.isTTY
    ? ora({ stream: process.stderr, discardStdin: false, color: 'gray' })
    : undefined;
  let busy: AbortController | undefined;
  let closed = false;
  rl.on('close', () => {
    closed = true;
  });
  rl.on('SIGINT', () => {
    if (busy) busy.abort();
    else if (rl.line.length > 0) rl.write(null, { ctrl: true, name: 'u' });
    else rl.close();
  });

  process.stdout.write(s.dim(`agent chat · ${chat.label} · /help for commands, Ctrl-D to leave\n`));
  while (!closed) {
    const line = await ask(rl, s.bold('› '));
    if (line === null) break;
    const text = line.trim();
    if (!text) continue;
    if (text.startsWith('/')) {
      if (!slash(chat, text, (out) => process.stdout.write(`${out}\n`))) break;
      continue;
    }
    const renderer = new TurnRenderer(process.stdout, process.stderr, spinner);
    busy = new AbortController();
    const confirm = async (call: ToolCall, input: unknown) => {
      renderer.pause();
      const answer = await ask(rl, `Run ${renderer.describeCall(call, input)}? [y/N] `);
      return /^y(es)?$/i.test(answer?.trim() ?? '');
    };
    try {
      await chat.session.send(text, { signal: busy.signal, onEvent: renderer.handle, confirm });
      renderer.finish();
    } catch (error) {
      renderer.finish();
      if (error instanceof AbortedError)
        process.stderr.write(s.dim('(cancelled; the conversation is as it was before this message)\n'));
      else process.stderr.write(`${styleFor(process.stderr).red(`agent: ${errorMessage(error)}`)}\n`);
    } finally {
      busy = undefined;
    }
  }
  rl.close();
  process.stdout.write('\n');
}

function ask(rl: Interface, prompt: string): Promise<string | null> {
  return new Promise((resolve) => {
    const done = (value: string | null) => {
      rl.off('line', onLine);
      rl.off('close', onClose);
      resolve(value);
    };
    const onLine = (line: string) => done(line);
    const onClose = () => done(null);
    rl.on('line', onLine);
    rl.on('close', onClose);
    rl.setPrompt(prompt);
    rl.prompt();
  });
}

/** One user message per non-empty line; answers on stdout, traces on stderr. Stops at the first failure. */
async function piped(chat: Chat): Promise<void> {
  const rl = createInterface({ input: process.stdin, terminal: false, crlfDelay: Number.POSITIVE_INFINITY });
  let busy: AbortController | undefined;
  const onSigint = () => {
    busy?.abort();
    process.exitCode = 130;
    rl.close();
  };
  process.on('SIGINT', onSigint);
  try {
    for await (const raw of rl) {
      const text = raw.trim();
      if (!text) continue;
      if (text.startsWith('/')) {
        if (!slash(chat, text, (out) => process.stdout.write(`${out}\n`))) break;
        continue;
      }
      const renderer = new TurnRenderer(process.stdout, process.stderr);
      busy = new AbortController();
      try {
        await chat.session.send(text, { signal: busy.signal, onEvent: renderer.handle });
        renderer.finish();
      } catch (error) {
        renderer.finish();
        if (error instanceof AgentError) throw error;
        throw new AgentError(errorMessage(error), { cause: error });
      } finally {
        busy = undefined;
      }
    }
  } finally {
    process.off('SIGINT', onSigint);
    rl.close();
  }
}
