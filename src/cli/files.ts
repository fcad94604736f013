import { renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { AgentError, errorMessage } from '../errors.js';

/** Writes next to the target and renames, so a failure (a full disk) never leaves half a file. */
export function writeFileAtomic(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, path);
  } catch (error) {
    try {
      unlinkSync(tmp);
    } catch {}
    throw new AgentError(`Could not write ${path}: ${errorMessage(error)}`);
  }
}
