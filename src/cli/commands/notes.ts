import { UsageError } from '../../errors.js';
import type { Note } from '../../store/store.js';
import { openDb } from '../open-db.js';
import { styleFor } from '../style.js';

export interface NotesOptions {
  json?: boolean;
  limit: number;
  delete?: number;
  db?: string;
}

export async function runNotes(query: string | undefined, options: NotesOptions): Promise<void> {
  const store = await openDb(options.db);
  if (options.delete !== undefined) {
    let removed: boolean;
    try {
      removed = await store.notes.delete(options.delete);
    } finally {
      await store.close();
    }
    if (!removed)
      throw new UsageError(
        `There is no note #${options.delete}. \`agent notes\` lists them with their numbers.`,
      );
    process.stdout.write(`Deleted note #${options.delete}.\n`);
    return;
  }
  let notes: Note[];
  try {
    notes = await store.notes.list(query, options.limit);
  } finally {
    await store.close();
  }
  if (options.json) {
    process.stdout.write(`${JSON.stringify(notes, null, 2)}\n`);
    return;
  }
  if (notes.length === 0) {
    process.stdout.write(
      query ? `No notes match "${query}".\n` : 'No notes yet. In `agent chat`, ask the model to save one.\n',
    );
    return;
  }
  const s = styleFor(process.stdout);
  const blocks = notes.map((n) => {
    const head = [
      `#${n.id}`,
      n.title ? s.bold(n.title) : '',
      s.dim(`${n.createdAt.replace('T', ' ').slice(0, 16)} · ${n.user || 'unknown'}`),
    ]
      .filter(Boolean)
      .join('  ');
    const tags = n.tags.length ? `\n${s.dim(n.tags.map((t) => `#${t}`).join(' '))}` : '';
    return `${head}\n${n.content}${tags}`;
  });
  process.stdout.write(`${blocks.join('\n\n')}\n`);
}
