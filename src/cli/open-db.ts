import { type Db, openStore, pathOf } from '../store/open.js';
import { rememberDatabase } from './store-failure.js';

/** The database for a command: store/ never prints, so its notices (permissions tightened) go to stderr here. */
export function openDb(path?: string): Db {
  const db = openStore(path, { onNotice: (m) => process.stderr.write(`agent: ${m}\n`) });
  rememberDatabase(pathOf(db));
  return db;
}
