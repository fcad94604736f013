import { type Dirent, readdirSync, realpathSync, type Stats, statSync } from 'node:fs';
import { extname, join, sep } from 'node:path';
import { ConfigError } from '../../errors.js';
import { EXTENSIONS, isDocumentFile } from './read.js';

// The files of a content folder. Symbolic links are followed, to files and to folders, by their real
// path: each real folder is read once, the folder's own tree first, so a link back into the tree (a loop)
// or a second link to one folder is skipped with a reason instead of being walked again. Only regular
// files are ever opened: a FIFO would wait forever for a writer, a device could stream without end, so
// what is not a file or a folder (or a link to one) is skipped with a reason, known by stat alone.

export interface ContentFile {
  /** Absolute path as found under the content folder (through links, not resolved). */
  path: string;
  /** Path under the content folder with `/` separators. */
  relPath: string;
  slug: string;
  mtimeMs: number;
  size: number;
}

export interface SkippedFile {
  /** Path under the content folder. */
  path: string;
  reason: string;
}

export function listContentFiles(root: string): { files: ContentFile[]; skipped: SkippedFile[] } {
  const found: Omit<ContentFile, 'slug'>[] = [];
  const skipped: SkippedFile[] = [];
  const realRoot = realpathSync(root);
  const seen = new Map<string, string>([[realRoot, '.']]);
  const links: { path: string; relPath: string; real: string }[] = [];

  // `relDir`: the folder's path under the content folder, '' for the folder itself. Paths are joined by
  // hand, not with path.join and path.relative: on 20,000 files those cost as much as the stat calls.
  const walk = (dir: string, relDir: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      // The content folder itself: nothing can be indexed, and the run must not go on as if empty.
      if (dir === root)
        throw new ConfigError(`The content folder ${root} cannot be read: ${fileError(error)}.`);
      skipped.push({ path: relDir, reason: `the folder cannot be read: ${fileError(error)}` });
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const prefix = dir.endsWith(sep) ? dir : dir + sep;
    for (const entry of entries) {
      // Hidden files and Office's lock files (~$report.docx) are not documents.
      if (entry.name.startsWith('.') || entry.name.startsWith('~$')) continue;
      // A plain file in another format needs no stat: it is not a document.
      if (entry.isFile() && !isDocumentFile(entry.name)) continue;
      const path = prefix + entry.name;
      const relPath = relDir ? `${relDir}/${entry.name}` : entry.name;
      let st: Stats;
      try {
        st = statSync(path);
      } catch (error) {
        const why = (error as { code?: string }).code;
        // A link without an extension may have been a folder: say so; other things are not documents.
        if (!isDocumentFile(entry.name) && extname(entry.name)) continue;
        const reason = !entry.isSymbolicLink()
          ? `cannot be read: ${fileError(error)}`
          : why === 'ELOOP'
            ? 'a symbolic link loop'
            : why === 'ENOENT'
              ? 'a broken symbolic link: its target does not exist'
              : `a symbolic link that cannot be followed: ${fileError(error)}`;
        skipped.push({ path: relPath, reason });
        continue;
      }
      if (st.isDirectory()) {
        let real: string;
        try {
          real = realpathSync(path);
        } catch (error) {
          skipped.push({ path: relPath, reason: `the folder cannot be resolved: ${fileError(error)}` });
          continue;
        }
        // Linked folders wait until the real tree is walked, so the tree keeps its own paths.
        if (entry.isSymbolicLink()) links.push({ path, relPath, real });
        else if (!seen.has(real)) {
          seen.set(real, relPath);
          walk(path, relPath);
        }
      } else if (st.isFile()) {
        if (isDocumentFile(entry.name))
          found.push({ path, relPath, mtimeMs: Math.floor(st.mtimeMs), size: st.size });
      } else {
        const link = entry.isSymbolicLink() ? 'a symbolic link to ' : '';
        skipped.push({ path: relPath, reason: `${link}${specialKind(st)}, not a file` });
      }
    }
  };
  walk(root, '');
  for (let i = 0; i < links.length; i++) {
    const { path, relPath, real } = links[i]!;
    const already = seen.get(real);
    if (already !== undefined) {
      const loop = real === realRoot || `${realpathSync(join(path, '..'))}${sep}`.startsWith(`${real}${sep}`);
      skipped.push({
        path: relPath,
        reason: loop
          ? `a symbolic link loop: it leads back to ${already === '.' ? 'the content folder' : already}`
          : `a second link to a folder already indexed as ${already}`,
      });
      continue;
    }
    seen.set(real, relPath);
    walk(path, relPath);
  }
  return { files: assignSlugs(found, skipped), skipped };
}

const rank = (relPath: string) => (EXTENSIONS as readonly string[]).indexOf(extname(relPath).toLowerCase());

/**
 * The slug is the path without its extension. Files that differ only by extension share it: the first in
 * the order .md, .markdown, .txt, .html, .htm, .docx, .pdf keeps it, the others keep their extension in
 * the slug (`policies/travel.pdf`).
 */
function assignSlugs(found: Omit<ContentFile, 'slug'>[], skipped: SkippedFile[]): ContentFile[] {
  const groups = new Map<string, Omit<ContentFile, 'slug'>[]>();
  for (const f of found) {
    const base = f.relPath.slice(0, f.relPath.length - extname(f.relPath).length);
    const group = groups.get(base);
    if (group) group.push(f);
    else groups.set(base, [f]);
  }
  const files: ContentFile[] = [];
  const taken = new Set(groups.keys());
  for (const [base, group] of groups) {
    if (group.length === 1) {
      files.push({ ...group[0]!, slug: base });
      continue;
    }
    group.sort((a, b) => rank(a.relPath) - rank(b.relPath) || (a.relPath < b.relPath ? -1 : 1));
    files.push({ ...group[0]!, slug: base });
    for (const f of group.slice(1)) {
      // "a.pdf" is also the plain slug of a file named "a.pdf.md": that file keeps it.
      if (taken.has(f.relPath))
        skipped.push({ path: f.relPath, reason: `its slug ${f.relPath} is taken by another file` });
      else files.push({ ...f, slug: f.relPath });
    }
  }
  return files.sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
}

/** What a path that is neither a file nor a folder is, in words. */
function specialKind(st: Stats): string {
  if (st.isFIFO()) return 'a named pipe (FIFO)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  return 'a special file';
}

/** Why a file or folder could not be used, in words. */
export function fileError(error: unknown): string {
  const c = (error as { code?: string }).code;
  if (c === 'EACCES' || c === 'EPERM') return 'permission denied';
  if (c === 'ENOENT') return 'it no longer exists';
  return c ?? (error as Error).message;
}
