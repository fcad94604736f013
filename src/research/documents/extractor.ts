import { EXTRACTOR_VERSION } from '../../formats/version.js';
import type { Db } from '../../store/open.js';

// Documents indexed by an older extractor are read again once: their stored size is forgotten, so the
// next refresh of each content folder sees every file as changed.

const KEY = 'extractor_version';

/** Marks every indexed document for a fresh read when the index was written by another extractor. */
export function forgetOlderReads(db: Db): void {
  const stored = db.prepare('SELECT value FROM index_meta WHERE key = ?').pluck().get(KEY);
  if (stored === String(EXTRACTOR_VERSION)) return;
  db.transaction(() => {
    db.prepare('UPDATE documents SET size = -1').run();
    db.prepare('INSERT OR REPLACE INTO index_meta (key, value) VALUES (?, ?)').run(
      KEY,
      String(EXTRACTOR_VERSION),
    );
  }).immediate();
}
