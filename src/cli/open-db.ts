import { type Db, openStore } from '../store/open.js';

/** The database for a command: store/ never prints, so its notices (permissions tightened) go to stderr here. */
export function openDb(path?: string): Db {
  return openStore(path, { onNotice: (m) => process.stderr.write(`agent: ${m}\n`) });
}
