import { type OpenOptions, openStore } from '../store/open.js';
import type { Store } from '../store/store.js';
import { checkDatabasePath } from './db-path-check.js';
import { rememberDatabase } from './store-failure.js';

/** The store for a command: store/ never prints, so its notices (permissions tightened) go to stderr here. */
export async function openDb(target?: string, options: Pick<OpenOptions, 'migrate'> = {}): Promise<Store> {
  // A folder or a file of another kind named as the database: said as such, before SQLite opens it.
  checkDatabasePath(target);
  const store = await openStore(target, {
    ...options,
    onNotice: (m) => process.stderr.write(`agent: ${m}\n`),
  });
  rememberDatabase(store.location);
  return store;
}
