import type { NotesStore } from '../store/store.js';
import { saveNoteParameters, searchNotesParameters } from './parameters.js';
import { type Tool, ToolError } from './tool.js';

export function saveNoteTool(notes: NotesStore): Tool<{ content: string; title?: string; tags?: string[] }> {
  return {
    name: 'save_note',
    description:
      'Saves a note for the user in their local notes (listed by `agent notes`). Call it when the user asks you ' +
      'to remember, save or note something, or to keep a finding for later. Returns the note id.',
    parameters: saveNoteParameters,
    input: () => import('./inputs.js').then((m) => m.saveNoteInput),
    async run(input) {
      if (!input.content.trim())
        throw new ToolError('The note content is empty; write what should be saved.');
      const note = await notes.add(input);
      return `Saved note #${note.id}${note.title ? ` "${note.title}"` : ''}.`;
    },
  };
}

export function searchNotesTool(notes: NotesStore): Tool<{ query?: string; limit?: number }> {
  return {
    name: 'search_notes',
    description:
      "Searches the user's saved notes by words (full-text), or lists the newest without a query. Call it when " +
      'the user refers to something they saved or asks what their notes say.',
    parameters: searchNotesParameters,
    input: () => import('./inputs.js').then((m) => m.searchNotesInput),
    async run({ query, limit }) {
      const found = await notes.list(query?.trim() || undefined, limit ?? 5);
      if (found.length === 0) return query ? `No notes match "${query}".` : 'There are no notes yet.';
      return found
        .map(
          (n) =>
            `#${n.id} ${n.title ? `${n.title} ` : ''}(${n.createdAt.slice(0, 10)}${n.tags.length ? `; tags: ${n.tags.join(', ')}` : ''})\n${n.content}`,
        )
        .join('\n\n');
    },
  };
}
