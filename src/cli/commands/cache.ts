import { parseDuration } from '../../cache/duration.js';
import { UsageError } from '../../errors.js';
import type { CacheTally, Removed } from '../../store/store.js';
import { byteSize } from '../../web/net/safe-fetch.js';
import { openDb } from '../open-db.js';
import { formatInt, formatWhen, table } from '../style.js';

export interface CacheOptions {
  clear?: boolean;
  olderThan?: string;
  json?: boolean;
  db?: string;
}

const EMPTY: CacheTally = { count: 0, bytes: 0, oldest: null, newest: null };
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const tallyJson = (t: CacheTally) => ({ ...t, oldest: iso(t.oldest), newest: iso(t.newest) });

export async function runCache(options: CacheOptions): Promise<void> {
  if (options.olderThan !== undefined && !options.clear)
    throw new UsageError('--older-than says which entries --clear removes: use it with --clear.');
  const olderThanMs = options.olderThan === undefined ? undefined : parseDuration(options.olderThan);
  const store = await openDb(options.db);
  try {
    // A database opened read-only before this version's schema has no caches yet: they are empty.
    const ready = await store.cache.available();
    if (options.clear) {
      const removed = ready
        ? await store.cache.clear(olderThanMs === undefined ? undefined : Date.now() - olderThanMs)
        : { pages: { count: 0, bytes: 0 }, extractions: { count: 0, bytes: 0 } };
      printRemoved(removed, options);
      return;
    }
    const stats = ready ? await store.cache.stats() : { pages: EMPTY, extractions: EMPTY };
    const database = store.location;
    const bytes = stats.pages.bytes + stats.extractions.bytes;
    if (options.json) {
      const out = {
        database,
        bytes,
        pages: tallyJson(stats.pages),
        extractions: tallyJson(stats.extractions),
      };
      process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
      return;
    }
    if (stats.pages.count + stats.extractions.count === 0) {
      process.stdout.write(
        `The cache in ${database} is empty: research, chat and agent read keep the pages they read and the facts they extract there.\n`,
      );
      return;
    }
    const when = (ms: number | null) => (ms === null ? '-' : formatWhen(new Date(ms).toISOString()));
    const row = (name: string, t: CacheTally) => [
      name,
      formatInt(t.count),
      byteSize(t.bytes),
      when(t.oldest),
      when(t.newest),
    ];
    const out = table(
      ['CACHE', 'ENTRIES', 'SIZE', 'OLDEST', 'NEWEST'],
      [row('pages', stats.pages), row('extractions', stats.extractions)],
    );
    process.stdout.write(`The cache in ${database} holds ${byteSize(bytes)}:\n\n${out}\n`);
  } finally {
    await store.close();
  }
}

function printRemoved(removed: { pages: Removed; extractions: Removed }, options: CacheOptions): void {
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ removed, olderThan: options.olderThan ?? null }, null, 2)}\n`);
    return;
  }
  const older = options.olderThan === undefined ? '' : ` older than ${options.olderThan}`;
  const { pages, extractions } = removed;
  if (pages.count + extractions.count === 0) {
    process.stdout.write(`Nothing to remove: the cache holds no entries${older}.\n`);
    return;
  }
  const part = (r: Removed, one: string, many: string) =>
    `${formatInt(r.count)} ${r.count === 1 ? one : many} (${byteSize(r.bytes)})`;
  process.stdout.write(
    `Removed ${part(pages, 'page', 'pages')} and ${part(extractions, 'extraction', 'extractions')}${older}.\n`,
  );
}
