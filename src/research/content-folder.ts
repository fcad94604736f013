import { opendirSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../errors.js';
import { fileError } from './documents/walk.js';

// The content folder research reads its local documents from (documents/ indexes it). This module sits two
// levels below the package root, as every bundled file does (dist/bundle/), so the sample documents'
// path is the same from src/, dist/ and the bundle.

/**
 * `--content`, else `AGENT_CONTENT_DIR`, else the sample documents shipped in the package. A folder that
 * is missing, not a folder or cannot be read is a configuration error (exit 2) naming it.
 */
export function contentDirectory(flag?: string, env: NodeJS.ProcessEnv = process.env): string {
  const dir = flag || env.AGENT_CONTENT_DIR || fileURLToPath(new URL('../../content', import.meta.url));
  const abs = resolve(dir);
  const refuse = (problem: string) =>
    new ConfigError(`The content folder ${abs} ${problem}. Point --content or AGENT_CONTENT_DIR at one.`);
  let isFolder: boolean;
  try {
    isFolder = statSync(abs).isDirectory();
  } catch (error) {
    throw refuse(
      (error as NodeJS.ErrnoException).code === 'ENOENT'
        ? 'does not exist'
        : `cannot be reached: ${fileError(error)}`,
    );
  }
  if (!isFolder) throw refuse('is not a folder');
  try {
    // Opening it is the real test: permission bits, ACLs and mounts all have their say.
    opendirSync(abs).closeSync();
  } catch (error) {
    throw refuse(`cannot be read: ${fileError(error)}`);
  }
  return abs;
}
