import { storeError } from '../store/errors.js';

// A database error that escapes a command (a read that meets a damaged page, a lock held too long) is
// said as its real reason, naming the file, instead of as an unexpected error. Loads no SQLite.

let opened: string | undefined;

export function rememberDatabase(path: string): void {
  opened = path;
}

export const explainStoreFailure = (error: unknown): unknown => (opened ? storeError(opened, error) : error);
