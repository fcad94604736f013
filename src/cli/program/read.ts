import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { MAX_FILE_MIB, parseMiB } from '../../research/documents/read.js';
import { maxAgeOption, positiveInt } from './options.js';

function mebibytes(value: string): number {
  const mib = parseMiB(value);
  if (mib === undefined) throw new InvalidArgumentError('expected a size in MiB above 0, like 200.');
  return mib;
}

export function addReadCommand(program: Command): void {
  program
    .command('read')
    .argument(
      '<file-or-url>',
      'a PDF, Word (.docx), HTML, Markdown or text file (a path or a file:// URL), or an http(s) URL',
    )
    .description('Print a document or web page as Markdown, title first: what research reads from it.')
    .option(
      '--max-chars <n>',
      'print at most this many characters of text (a long PDF is read only that far)',
      positiveInt,
    )
    .option(
      '--max-size <MiB>',
      `read a local file up to this size in MiB, 2^20 bytes (default: $AGENT_MAX_DOCUMENT_MB, else ${MAX_FILE_MIB})`,
      mebibytes,
    )
    .addOption(maxAgeOption())
    .option('--refresh', 'fetch the URL afresh, ignoring the page cache (the page fetched is still cached)')
    .option('--json', 'print {"title", "kind", "location", "pages", "text"} for scripts')
    .addHelpText(
      'after',
      `
URLs follow read_url's rules: public http(s) addresses only (AGENT_ALLOW_HOSTS opens others), 512 KB
of a page, a PDF up to 10 MB, known by its type or its %PDF- start. A page read by URL is kept in the
page cache (see agent cache) and read from there for a day (--max-age), then asked for again with its
validators; --refresh fetches it afresh.

A local file is read whole: an HTML file keeps every section (only its navigation bars are left out),
with headings, links, footnotes, lists and tables; a web page is cut down to its article. Files larger
than ${MAX_FILE_MIB} MiB are refused unless --max-size or AGENT_MAX_DOCUMENT_MB (also the limit when research
indexes a folder) allows more.

Exit status: 0 read, 1 the document cannot be read (encrypted, damaged, scanned, unsupported type,
network failure), 2 a missing file or an invalid or refused URL.

Examples:
  agent read manual.pdf > manual.md
  agent read https://example.com/guide --max-chars 4000
  agent read report.docx --json | jq -r .title`,
    )
    .action(async (source: string, options, command: Command) => {
      const { runRead } = await import('../commands/read.js');
      await runRead(source, { ...options, db: command.optsWithGlobals().db });
    });
}
