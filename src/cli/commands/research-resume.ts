import { UsageError } from '../../errors.js';
import type { ResearchOptions } from '../../research/pipeline.js';
import { type RecordedOptions, recordedRun } from '../../research/run/resume.js';
import { safeLocation } from '../../store/open.js';
import { openDb } from '../open-db.js';

// `agent research --resume <id>`: the run continues as it was started. Its question, content folder and
// settings are the recorded ones; the models too, unless --provider or a model flag names others (the
// original provider may be the thing that failed). What only shapes this attempt stays free: --json,
// --out, --format, --raw, --verify, --concurrency, --max-cost (which caps what this attempt spends).

/** Flags that would change what the run is: refused with --resume. */
const FIXED = [
  '--content',
  '--report',
  '--depth',
  '--breadth',
  '--per-search',
  '--max-sources',
  '--site',
  '--exclude-site',
  '--recent',
  '--plan',
  '--plan-file',
  '--review',
  '--extractive',
];

/** The research command's options that --resume reads or sets. */
interface ResumeFlags {
  db?: string;
  /** The flags given on the command line (not defaults), as `--name`. */
  given?: string[];
  provider?: string;
  smallModel?: string;
  largeModel?: string;
  verify?: boolean;
  content?: string;
  report?: boolean;
  depth?: number;
  breadth?: number;
  perSearch?: number;
  maxSources?: number;
}

/** The command's options for continuing run `id`, from what it recorded; a usage error for a clash. */
export async function resumeOptions<T extends ResumeFlags>(
  id: number,
  question: string,
  o: T,
): Promise<{ question: string; options: T; recorded: RecordedOptions }> {
  const clash = (o.given ?? []).filter((flag) => FIXED.includes(flag));
  if (question.trim()) clash.unshift('a question');
  if (clash.length)
    throw new UsageError(
      `--resume continues run #${id} with the question and settings it was started with: drop ${clash.join(', ')}.`,
    );
  const store = await openDb(o.db);
  let recorded: RecordedOptions;
  try {
    recorded = await recordedRun(store, id);
  } finally {
    await store.close();
  }
  const s = recorded.settings;
  const sameProvider = o.provider === undefined || o.provider === recorded.provider;
  return {
    question: recorded.question,
    recorded,
    options: {
      ...o,
      content: recorded.contentDir,
      provider: o.provider ?? recorded.provider,
      smallModel: o.smallModel ?? (sameProvider ? recorded.smallModel : undefined),
      largeModel: o.largeModel ?? (sameProvider ? recorded.largeModel : undefined),
      verify: o.verify || recorded.verify,
      report: s.report,
      depth: s.depth,
      breadth: s.breadth,
      perSearch: s.perSearch,
      maxSources: s.maxSources,
    },
  };
}

/** The recorded web filters, never the environment's defaults of today. */
export const recordedFilters = (
  r: RecordedOptions,
): Pick<ResearchOptions, 'sites' | 'excludeSites' | 'recent'> => ({
  sites: r.settings.sites ?? [],
  excludeSites: r.settings.excludeSites ?? [],
  recent: r.settings.recent,
});

/** The command that continues run `id`, with the --db flag the interrupted command was given. */
export function resumeCommand(id: number, given: string | undefined): string {
  // A server's password is never printed: whoever gave it types it again.
  const db = given === undefined ? undefined : safeLocation(given);
  const quoted =
    db === undefined ? '' : /^[\w@%+=:,./-]+$/.test(db) ? db : `'${db.replaceAll("'", "'\\''")}'`;
  return `agent research --resume ${id}${db === undefined ? '' : ` --db ${quoted}`}`;
}
