import {
  accessSync,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readlinkSync,
  realpathSync,
  type Stats,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { AgentError, UsageError } from '../errors.js';

// `--out <file>`: what the user named is what gets written. A regular file (or a new one) is replaced
// atomically, keeping its mode and owner; a symbolic link is followed to its target (a dangling one's
// target is created); a FIFO, a character device or one of our own descriptors (`/dev/stdout`,
// `/dev/fd/3`) is written in place, since replacing it would break whoever reads it; `-` is stdout.

/** Where the text goes, once links are followed. */
type Target =
  | { kind: 'stdout' }
  /** A descriptor this process holds: `/dev/stdout`, `/dev/fd/N`, `/proc/self/fd/N`. */
  | { kind: 'descriptor'; fd: number }
  /** A FIFO, a character device, or another process's descriptor: opened and written, never replaced. */
  | { kind: 'in-place'; path: string }
  /** A regular file, or none yet: written beside it and renamed over it. */
  | { kind: 'replace'; path: string };

/** The folder of a process's open descriptors, where each entry is a link the kernel resolves itself. */
const DESCRIPTORS = /^\/proc\/(\d+)(?:\/task\/\d+)?\/fd$/;

/** Linux gives up after 40 links in one path; so do we. */
const MAX_LINKS = 40;

class Refused extends Error {}

/** Why a file operation failed, in words. */
function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'it does not exist';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ENOSPC') return 'no space left on the device';
  if (code === 'EDQUOT') return 'the disk quota is exceeded';
  if (code === 'EISDIR') return 'it is a folder';
  if (code === 'EROFS') return 'the file system is read-only';
  if (code === 'ENXIO') return 'no such device or address';
  if (code === 'ELOOP') return 'too many levels of symbolic links';
  if (code === 'EIO') return 'input/output error';
  return (error as Error).message ?? String(error);
}

/** The real path of a folder, or why there is none. */
function realFolder(dir: string): string {
  try {
    return realpathSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new Refused(`the folder ${dir} does not exist`);
    if (code === 'ENOTDIR') throw new Refused(`${dir} is not a folder`);
    throw new Refused(`the folder ${dir} cannot be reached: ${reason(error)}`);
  }
}

/** Follows `path` link by link (a dangling link leads to the file it names) to what will be written. */
function locate(path: string): { target: Target; stats?: Stats } {
  if (path === '-') return { target: { kind: 'stdout' } };
  if (path.endsWith('/')) throw new Refused('it names a folder');
  let current = resolve(path);
  for (let links = 0; links <= MAX_LINKS; links++) {
    const folder = realFolder(dirname(current));
    current = join(folder, basename(current));
    const descriptors = DESCRIPTORS.exec(folder);
    if (descriptors) {
      const fd = Number(basename(current));
      if (Number(descriptors[1]) === process.pid && Number.isInteger(fd))
        return { target: { kind: 'descriptor', fd } };
      return { target: { kind: 'in-place', path: current } };
    }
    let stats: Stats;
    try {
      stats = lstatSync(current);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT')
        return { target: { kind: 'replace', path: current } };
      throw new Refused(reason(error));
    }
    if (!stats.isSymbolicLink()) {
      if (stats.isFile()) return { target: { kind: 'replace', path: current }, stats };
      if (stats.isFIFO() || stats.isCharacterDevice())
        return { target: { kind: 'in-place', path: current }, stats };
      throw new Refused(
        stats.isDirectory()
          ? 'it is a folder'
          : stats.isBlockDevice()
            ? 'it is a block device (a disk), which is never written over'
            : 'it is a socket, which cannot be written as a file',
      );
    }
    current = resolve(folder, readlinkSync(current));
  }
  throw new Refused('too many levels of symbolic links');
}

/** Throws `Refused` with the real reason when `target` cannot be written; does no harm to it. */
function probe(target: Target, stats: Stats | undefined): void {
  if (target.kind === 'stdout') return;
  if (target.kind === 'descriptor') {
    try {
      fstatSync(target.fd);
    } catch {
      throw new Refused(`descriptor ${target.fd} is not open`);
    }
    return;
  }
  if (target.kind === 'in-place' && !stats?.isFIFO()) {
    // A device (or another process's descriptor) says whether it takes writes when opened; without
    // waiting, so a terminal line or a device that blocks cannot hold the check up.
    try {
      closeSync(openSync(target.path, constants.O_WRONLY | constants.O_NONBLOCK | constants.O_NOCTTY));
    } catch (error) {
      throw new Refused(reason(error));
    }
    return;
  }
  // A FIFO is only checked for permission: opening and closing it would end its reader's input.
  if (stats) {
    try {
      accessSync(target.path, constants.W_OK);
    } catch (error) {
      throw new Refused(reason(error));
    }
  }
  if (target.kind === 'in-place') return;
  // The new text is written to a file beside the target, then renamed over it: that file must be
  // possible. Trying is the only honest test (root passes every permission check, yet /proc refuses).
  const folder = dirname(target.path);
  const trial = join(folder, `.${basename(target.path)}.${process.pid}.check`);
  try {
    closeSync(openSync(trial, 'wx', 0o600));
    unlinkSync(trial);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? `${folder} does not accept new files`
        : code === 'EACCES' || code === 'EPERM'
          ? `no permission to create files in ${folder}`
          : `a file cannot be created in ${folder}: ${reason(error)}`;
    throw new Refused(stats ? `${why} (the text is written beside the file, then renamed over it)` : why);
  }
}

/**
 * Checks, before any work is done, that `--out` can be written: a run that has been paid for must not
 * end in "could not write". A usage error (exit 2) with the reason otherwise. Cheap: a few system calls.
 */
export function checkWritable(path: string, { option = '--out', json = false } = {}): void {
  if (path.trim() === '') throw new UsageError(`${option} needs a file name (or - for standard output).`);
  if (path === '-' && json) throw new UsageError(`${option} - and --json both write to stdout: choose one.`);
  try {
    const { target, stats } = locate(path);
    probe(target, stats);
  } catch (error) {
    if (error instanceof Refused) throw new UsageError(`Cannot write ${option} ${path}: ${error.message}.`);
    throw error;
  }
}

const requireCjs = createRequire(import.meta.url);

/** Writes all of `text` to a descriptor; stdout and stderr through their streams, to keep the order. */
async function writeDescriptor(fd: number, text: string): Promise<void> {
  const stream = fd === 1 ? process.stdout : fd === 2 ? process.stderr : undefined;
  if (stream) {
    await new Promise<void>((done, fail) => stream.write(text, (error) => (error ? fail(error) : done())));
    return;
  }
  const data = Buffer.from(text);
  for (let at = 0; at < data.length; ) at += writeSync(fd, data, at);
}

/**
 * Writes `text` to what `--out` names (see the top of this file). A failure is a run-time error (exit 1)
 * naming the path as the user gave it; a failed replacement leaves the old file as it was.
 */
export async function writeOutput(path: string, text: string): Promise<void> {
  try {
    const { target } = locate(path);
    switch (target.kind) {
      case 'stdout':
        return await writeDescriptor(1, text);
      case 'descriptor':
        return await writeDescriptor(target.fd, text);
      case 'in-place':
        // Appending: a descriptor of another process that is a regular file keeps what it holds.
        return await writeFile(target.path, text, { flag: 'a' });
      case 'replace': {
        // Loaded from node_modules when first used; it keeps the file's mode and (as root) its owner.
        const writeFileAtomic = requireCjs('write-file-atomic') as typeof import('write-file-atomic');
        return await writeFileAtomic(target.path, text);
      }
    }
  } catch (error) {
    const why = error instanceof Refused ? error.message : reason(error);
    throw new AgentError(`Could not write ${path}: ${why}.`);
  }
}
