import { parseUsd, USD_EXPECTED } from '../../research/run/budget.js';
import { formatCost, formatInt, formatUsd } from '../style.js';
import { capSpent, newCap } from './cap.js';
import type { Chat } from './context.js';

const HELP = `Commands:
  /help     this list
  /tools    the tools the model can use, and where each comes from
  /cost     tokens and dollars spent in this session
  /max-cost [usd]
            show this chat's spending cap, or set it (new messages are refused once it is spent)
  /session  the number of this session, to resume it later (agent chat --session <id>)
  /clear    start a new session; this one stays saved (agent sessions lists them)
  /research <question>
            run the cited research chain (documents and web) and show its answer
  /exit     leave (also Ctrl-D, or Ctrl-C at an empty prompt)
Ctrl-C while the model is working cancels that turn; the chat stays open.`;

export async function costLine(chat: Chat): Promise<string> {
  const t = await chat.store.ledger.runTotals(chat.session.runId);
  return (
    `This session: ${t.calls} model call(s); input ${formatInt(t.inputTokens)}, cache read ${formatInt(t.cacheReadTokens)}, ` +
    `cache write ${formatInt(t.cacheWriteTokens)}, output ${formatInt(t.outputTokens)} tokens; ${formatCost(t)}.`
  );
}

/** `/max-cost`: the cap and what is spent under it; `/max-cost <usd>` sets it (from now, when new). */
async function setCap(chat: Chat, arg: string): Promise<string> {
  if (arg) {
    const limit = parseUsd(arg);
    if (limit === undefined) return `Usage: /max-cost <usd>: ${USD_EXPECTED}.`;
    if (chat.cap) chat.cap.limitUsd = limit;
    else chat.cap = newCap(limit);
  }
  if (!chat.cap) return 'No spending cap is set: /max-cost <usd> sets one.';
  const spent = await capSpent(chat, chat.cap);
  return `Spending cap ${formatUsd(chat.cap.limitUsd)}: ${formatUsd(spent)} spent under it.`;
}

/**
 * Every tool, where it comes from, and whether it asks before running; then server tools that are not
 * offered, and servers still starting.
 */
export function toolList(chat: Chat): string {
  chat.mcp?.join();
  const { registry, origins } = chat.tools;
  const notOffered = chat.mcp?.notOffered ?? [];
  const width = Math.max(...registry.names.map((n) => n.length), ...notOffered.map((t) => t.name.length));
  const lines = registry.tools.map((t) => {
    const server = origins.get(t.name);
    const from = server ? `MCP server "${server}"` : 'built-in';
    const asks = t.needsConfirmation ? (chat.options.yes ? ', approved by --yes' : ', asks first') : '';
    const gone = t.available?.() === false ? ' (stopped: no longer offered)' : '';
    return `${t.name.padEnd(width)}  ${from}${asks}${gone}`;
  });
  for (const t of notOffered)
    lines.push(`${t.name.padEnd(width)}  MCP server "${t.server}" (not offered: it ${t.reason})`);
  for (const server of chat.mcp?.starting ?? [])
    lines.push(`MCP server "${server}" is still starting: its tools join when it is ready.`);
  return lines.join('\n');
}

function sessionLine(chat: Chat): string {
  const id = chat.session.id;
  return id === undefined
    ? 'This session is saved with its first answer; nothing has been answered yet.'
    : `This is session #${id}: agent chat --session ${id} resumes it.`;
}

/** A typed line as a message, or undefined for a slash command; `//…` sends a message that starts with `/`. */
export function asMessage(line: string): string | undefined {
  if (line.startsWith('//')) return line.slice(1);
  return line.startsWith('/') ? undefined : line;
}

/** Slash commands; resolves false when the chat should end. */
export async function slash(
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
      write(await costLine(chat));
      break;
    case '/max-cost':
      write(await setCap(chat, line.slice(command.length).trim()));
      break;
    case '/tools':
      write(toolList(chat));
      break;
    case '/session':
      write(sessionLine(chat));
      break;
    case '/clear': {
      const left = chat.session.clear();
      write(
        left === undefined
          ? 'Conversation cleared.'
          : `Conversation cleared: session #${left} stays saved (agent chat --session ${left} resumes it); your next message starts a new session.`,
      );
      break;
    }
    case '/research': {
      // The research chain (documents, readers, the pipeline) loads on first use, not at chat start.
      const { researchInChat } = await import('./research.js');
      await researchInChat(chat, line.slice(command.length).trim(), signal);
      break;
    }
    default:
      // On stderr: in pipe mode stdout carries only answers. A message that must start with / can be sent
      // with a space before it.
      process.stderr.write(
        `Unknown command ${command}. Try /help, or start the line with // to send it as a message.\n`,
      );
  }
  return true;
}
