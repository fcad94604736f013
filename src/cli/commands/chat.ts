import { randomUUID } from 'node:crypto';
import { createInterface, type Interface } from 'node:readline';
import type { Ora } from 'ora';
import { ChatSession } from '../../chat/session.js';
import { chatSystemPrompt } from '../../chat/system-prompt.js';
import { AbortedError, AgentError, ConfigError, errorMessage } from '../../errors.js';
import { loadUserPrices } from '../../providers/price-file.js';
import type { Price } from '../../providers/prices.js';
import {
  createProvider,
  NO_PROVIDER_MESSAGE,
  resolveModel,
  resolveProviderName,
} from '../../providers/registry.js';
import { contentDirectory } from '../../research/documents.js';
import { type ModelSetup, runResearch } from '../../research/pipeline.js';
import { runTotals } from '../../store/ledger.js';
import { type Db, openStore } from '../../store/open.js';
import { buildChatTools } from '../../tools/index.js';
import type { ToolCall } from '../../types.js';
import { TurnRenderer } from '../chat-render.js';
import { ResearchRenderer, sourceList } from '../research-render.js';
import { createSpinner } from '../spinner.js';
import { formatInt, formatUsd, styleFor } from '../style.js';
import { printResearch } from './research.js';

export interface ChatOptions {
  provider?: string;
  model?: string;
  maxTurns: number;
  yes?: boolean;
  content?: string;
  db?: string;
}

const HELP = `Commands:
  /help     this list
  /cost     tokens and dollars spent in this session
  /clear    forget the conversation so far
  /research <question>
            run the cited research chain (documents and web) and show its answer
  /exit     leave (also Ctrl-D, or Ctrl-C at an empty prompt)
Ctrl-C while the model is working cancels that turn; the chat stays open.`;

interface Chat {
  session: ChatSession;
  db: Db;
  options: ChatOptions;
  label: string;
  research: ModelSetup;
  userPrices: Record<string, Price>;
  spinner?: Ora;
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
    const research: ModelSetup = {
      provider,
      smallModel: resolveModel(providerName, 'small', undefined, process.env, model),
      largeModel: resolveModel(providerName, 'large', undefined, process.env, model),
    };
    const chat: Chat = { session, db, options, label: `${providerName} ${model}`, research, userPrices };
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

/** Slash commands; resolves false when the chat should end. */
async function slash(
  chat: Chat,
  line: string,
  write: (s: string) => void,
  signal: AbortSignal,
): Promise<boolean> {
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
    case '/research':
      await researchInChat(chat, line.slice(command.length).trim(), signal);
      break;
    default:
      write(`Unknown command ${command}. Try /help.`);
  }
  return true;
}

/**
 * The research chain inside a chat: its calls are recorded under the session, so /cost includes them;
 * only a finished run enters the conversation, so a failure leaves the history as it was.
 */
async function researchInChat(chat: Chat, question: string, signal: AbortSignal): Promise<void> {
  if (!question) {
    process.stdout.write('Usage: /research <question>\n');
    return;
  }
  const renderer = new ResearchRenderer(chat.spinner, Boolean(process.stdout.isTTY));
  let result: Awaited<ReturnType<typeof runResearch>>;
  let ok = false;
  try {
    result = await runResearch({
      question,
      db: chat.db,
      contentDir: contentDirectory(chat.options.content),
      env: process.env,
      models: chat.research,
      runId: chat.session.runId,
      userPrices: chat.userPrices,
      signal,
      onEvent: renderer.handle,
    });
    ok = true;
  } finally {
    renderer.finishProgress(ok);
  }
  printResearch(result, renderer.answerShown);
  chat.session.remember(
    `Research this question: ${question}`,
    `${result.answer}\n\nSources:\n${sourceList(result)}`,
  );
}

async function interactive(chat: Chat): Promise<void> {
  // The prompt and the typing echo go to the terminal even when answers are redirected to a file.
  const rl = createInterface({
    input: process.stdin,
    output: process.stdout.isTTY ? process.stdout : process.stderr,
    terminal: true,
    historySize: 200,
  });
  const s = styleFor(process.stdout);
  const spinner = await createSpinner();
  chat.spinner = spinner;
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
    busy = new AbortController();
    if (text.startsWith('/')) {
      try {
        if (!(await slash(chat, text, (out) => process.stdout.write(`${out}\n`), busy.signal))) break;
      } catch (error) {
        reportTurnError(error);
      } finally {
        busy = undefined;
      }
      continue;
    }
    const renderer = new TurnRenderer(process.stdout, process.stderr, spinner);
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
  if (chat.session.history.length > 0) process.stdout.write(`\n${s.dim(costLine(chat))}\n`);
  else process.stdout.write('\n');
}

function reportTurnError(error: unknown): void {
  if (error instanceof AbortedError) {
    process.stderr.write(
      styleFor(process.stderr).dim('(cancelled; the conversation is as it was before this message)\n'),
    );
  } else process.stderr.write(`${styleFor(process.stderr).red(`agent: ${errorMessage(error)}`)}\n`);
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
      busy = new AbortController();
      if (text.startsWith('/')) {
        const go = await slash(chat, text, (out) => process.stdout.write(`${out}\n`), busy.signal).catch(
          (error) => {
            throw error instanceof AgentError ? error : new AgentError(errorMessage(error), { cause: error });
          },
        );
        busy = undefined;
        if (!go) break;
        continue;
      }
      const renderer = new TurnRenderer(process.stdout, process.stderr);
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
