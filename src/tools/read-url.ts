import { pdfBudgetMs } from '../web/pdf-budget.js';
import { type Page, type ReadPageOptions, readPage } from '../web/read.js';
import { readUrlParameters } from './parameters.js';
import type { Tool } from './tool.js';

// The chat's read_url tool: a page read by the web layer (src/web/read.ts), shown title first and cut
// to what a tool result should hold.

export const MAX_TEXT_CHARS = 8000;

/** The title first, then the text, cut at MAX_TEXT_CHARS with a visible marker. */
export function formatPage(page: Page, max = MAX_TEXT_CHARS): string {
  const header = [page.title, page.url, page.note && `[${page.note}]`].filter(Boolean).join('\n');
  const room = Math.max(0, max - header.length - 2);
  const cut = page.text.length > room;
  const body = cut
    ? `${page.text.slice(0, room)}\n[… cut: ${page.text.length - room} more characters not shown]`
    : page.text;
  return `${header}\n\n${body}`;
}

export function readUrlTool(
  env: NodeJS.ProcessEnv = process.env,
  options: Omit<ReadPageOptions, 'env' | 'signal' | 'pdf'> = {},
): Tool<{ url: string }> {
  // Read now, so a bad AGENT_PDF_BUDGET_MS stops the chat at start rather than failing each read.
  const timeBudgetMs = pdfBudgetMs(env);
  return {
    name: 'read_url',
    description:
      'Fetches a public web page, PDF, plain text or JSON and returns its main text, title first, up to ' +
      '8,000 characters (a page as Markdown with its links, a PDF with [Page n] markers). Call it when ' +
      'the user gives a URL or a search result needs reading in full. ' +
      'Private, local and non-HTTP addresses are refused.',
    parameters: readUrlParameters,
    input: () => import('./inputs.js').then((m) => m.readUrlInput),
    async run({ url }, { signal }) {
      // A long PDF is read only as far as the text shown, or for its time budget: the rest would be cut anyway.
      const pdf = { maxChars: MAX_TEXT_CHARS, timeBudgetMs };
      return formatPage(await readPage(url, { ...options, env, signal, pdf }));
    },
  };
}
