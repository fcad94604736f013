import { accessSync, constants, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { AgentError, UsageError } from '../errors.js';

/** Why a write failed, in words, for the path the user gave (not our temporary file's name). */
function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'its folder does not exist';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ENOSPC') return 'no space left on the device';
  if (code === 'EISDIR') return 'it is a folder';
  if (code === 'EROFS') return 'the file system is read-only';
  return (error as Error).message ?? String(error);
}

/**
 * Checks, before any work is done, that `--out` can be written: a run that has been paid for must not
 * end in "could not write". A usage error (exit 2) otherwise.
 */
export function checkWritable(path: string): void {
  const target = resolve(path);
  let problem: string | undefined;
  try {
    if (statSync(target).isDirectory()) problem = 'it is a folder';
    else accessSync(target, constants.W_OK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') problem = reason(error);
    else {
      try {
        if (!statSync(dirname(target)).isDirectory()) problem = `${dirname(target)} is not a folder`;
        else accessSync(dirname(target), constants.W_OK);
      } catch (inner) {
        problem = reason(inner);
      }
    }
  }
  if (problem) throw new UsageError(`Cannot write --out ${path}: ${problem}.`);
}

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
    throw new AgentError(`Could not write ${path}: ${reason(error)}.`);
  }
}
