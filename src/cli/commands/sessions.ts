import { UsageError } from '../../errors.js';
import type { SessionSummary, StoredMessage } from '../../store/store.js';
import type { ToolResultMessage } from '../../types.js';
import { summarize } from '../chat/turn-render.js';
import { renderFor, terminalMarkdown } from '../markdown/index.js';
import { openDb } from '../open-db.js';
import { clean, formatCost, formatWhen, type Style, styleFor } from '../style.js';

export interface SessionsOptions {
  limit: number;
  show?: number;
  delete?: number;
  json?: boolean;
  raw?: boolean;
  /** Everyone's sessions (that the database lets this user see), not only this user's. */
  all?: boolean;
  db?: string;
}

const HOW_TO_LIST = '`agent sessions` lists them with their numbers.';

export async function runSessions(options: SessionsOptions): Promise<void> {
  const store = await openDb(options.db);
  const all = Boolean(options.all);
  try {
    if (options.delete !== undefined) {
      if (!(await store.sessions.delete(options.delete))) {
        const theirs = await store.sessions.get(options.delete, { all: true });
        throw new UsageError(
          theirs
            ? `Chat session #${options.delete} is ${theirs.user}'s: only they can delete it.`
            : `There is no chat session #${options.delete}. ${HOW_TO_LIST}`,
        );
      }
      process.stdout.write(`Deleted chat session #${options.delete}.\n`);
      return;
    }
    if (options.show !== undefined) {
      // Another person's session can be read (where the database lets this user see it).
      const session = await store.sessions.get(options.show, { all: true });
      if (!session) throw new UsageError(`There is no chat session #${options.show}. ${HOW_TO_LIST}`);
      const messages = await store.sessions.messages(session.id);
      if (options.json) {
        const out = messages.map((m) => ({ exchange: m.exchange, ...m.message }));
        process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
      } else {
        const render = terminalMarkdown(process.stdout, options.raw)
          ? (text: string) => renderFor(process.stdout, text).trimEnd()
          : undefined;
        process.stdout.write(`${conversation(session, messages, styleFor(process.stdout), render)}\n`);
      }
      return;
    }
    const sessions = await store.sessions.list({ limit: options.limit, all });
    if (options.json) {
      process.stdout.write(`${JSON.stringify(sessions.map(toJson), null, 2)}\n`);
      return;
    }
    if (sessions.length === 0) {
      process.stdout.write(
        all
          ? 'No saved chat sessions yet: `agent chat` saves each conversation as it goes.\n'
          : "No saved chat sessions yet (of yours; --all lists everyone's): `agent chat` saves each conversation as it goes.\n",
      );
      return;
    }
    process.stdout.write(
      `${listing(sessions, process.stdout.columns || 100, styleFor(process.stdout), all)}\n`,
    );
  } finally {
    await store.close();
  }
}

/** The whole cost when it is known: 0 for no calls, null as soon as one call had no known price. */
export const sessionCostUsd = (s: SessionSummary): number | null =>
  s.unpricedCalls > 0 ? null : (s.pricedUsd ?? 0);

const toJson = (s: SessionSummary) => ({
  id: s.id,
  createdAt: s.createdAt,
  updatedAt: s.updatedAt,
  provider: s.provider,
  model: s.model,
  exchanges: s.exchanges,
  costUsd: sessionCostUsd(s),
  firstMessage: s.firstMessage,
  user: s.user,
});

const cost = (s: SessionSummary) =>
  formatCost({ calls: s.calls, costUsd: s.pricedUsd, unpricedCalls: s.unpricedCalls });

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/** One aligned line per session; the first message takes what is left of the width. */
export function listing(sessions: SessionSummary[], width: number, s: Style, withUser = false): string {
  const rows = sessions.map((x) => [
    `#${x.id}`,
    ...(withUser ? [x.user || 'unknown'] : []),
    formatWhen(x.updatedAt),
    `${x.provider} ${x.model}`,
    `${x.exchanges} exchange${x.exchanges === 1 ? '' : 's'}`,
    cost(x),
  ]);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map((r, k) => {
      const numbers = withUser ? 4 : 3; // exchanges and cost are right-aligned
      const cells = r.map((c, i) =>
        i === 0 || i >= numbers ? c.padStart(widths[i]!) : c.padEnd(widths[i]!),
      );
      const head = cells.join('  ');
      const room = Math.max(20, width - head.length - 3);
      const first = oneLine(clean(sessions[k]!.firstMessage));
      const cut = first.length > room ? `${first.slice(0, room - 1)}…` : first;
      return `${s.bold(cells[0]!)}  ${s.dim(cells.slice(1).join('  '))}  ${cut}`;
    })
    .join('\n');
}

/** The conversation as it was said: user and assistant turns, each tool call on one line with its result. */
export function conversation(
  session: SessionSummary,
  messages: StoredMessage[],
  s: Style,
  /** Renders a reply's Markdown for a terminal; the reply is printed as written without it. */
  render?: (markdown: string) => string,
): string {
  const out = [
    s.bold(`Session #${session.id}`) +
      s.dim(
        ` · ${session.provider} ${session.model} · ${session.exchanges} exchange(s) · ${cost(session)}` +
          ` · started ${formatWhen(session.createdAt)}, last used ${formatWhen(session.updatedAt)}`,
      ),
  ];
  let usedWith = '';
  messages.forEach((entry, i) => {
    const m = entry.message;
    if (m.role === 'toolResult') return;
    if (m.role === 'user') {
      out.push('');
      const now = `${entry.provider} ${entry.model}`;
      if (usedWith && now !== usedWith) out.push(s.dim(`(continued with ${now})`));
      usedWith = now;
      out.push(`${s.bold('You:')} ${clean(m.content)}`);
      return;
    }
    // The results of this message's calls follow it.
    const results = new Map<string, ToolResultMessage>();
    for (let j = i + 1; j < messages.length && messages[j]!.message.role === 'toolResult'; j++) {
      const r = messages[j]!.message as ToolResultMessage;
      results.set(r.toolCallId, r);
    }
    for (const part of m.content) {
      if (part.type === 'text' && part.text.trim()) {
        const text = clean(part.text).trim();
        out.push(render ? `${s.bold('Assistant:')}\n${render(text)}` : `${s.bold('Assistant:')} ${text}`);
      } else if (part.type === 'toolCall') {
        const r = results.get(part.id);
        const outcome = !r ? '' : r.isError ? ` ✗ ${summarize(r.content)}` : ` = ${summarize(r.content)}`;
        out.push(s.dim(`  → ${part.name} ${compactArguments(part.argumentsText)}${outcome}`));
      }
    }
  });
  return out.join('\n');
}

function compactArguments(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return summarize(text);
  }
}
