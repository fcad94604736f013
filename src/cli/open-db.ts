import { type OpenOptions, openStore } from '../store/open.js';
import type { Store } from '../store/store.js';
import { rememberDatabase } from './store-failure.js';

/** The store for a command: store/ never prints, so its notices (permissions tightened) go to stderr here. */
export async function openDb(target?: string, options: Pick<OpenOptions, 'migrate'> = {}): Promise<Store> {
  const store = await openStore(target, {
    ...options,
    onNotice: (m) => process.stderr.write(`agent: ${m}\n`),
  });
  rememberDatabase(store.location);
  return store;
}
