// The bundled CLI's files (dist/bundle/*.cjs) are compiled with V8's code cache, kept per user: a start
// then deserializes the functions it ran last time instead of parsing and compiling ~1 MB of JavaScript
// (about a third of `agent research`'s time to its first model request). Node 22 does this itself
// (module.enableCompileCache); Node 20 does not, so this is bundled as dist/bundle/boot.cjs and loaded by
// bin/agent.js before anything else. Only our own bundle goes through it; packages load as usual.
//
// A cache file is named for the bundled file and its content hash (dist/bundle/hashes.json, written by
// scripts/bundle.mjs), in a folder per Node version and architecture: V8 itself refuses a cache made by
// another V8 or with other flags, but it checks only the source's length, so the name carries the hash.
// A process that found no usable cache for a file writes one as its first HTTP request is made (or at
// exit, for a file loaded later or a process that makes none). Writes go through a temporary file
// and a rename, so a process reading never sees half a file; any failure to read or write only means
// compiling as Node would. A file that calls import() has no hash (see scripts/bundle.mjs): a script
// compiled here has no import() callback on Node 20.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
  writeFileSync,
} from 'node:fs';
import Module, { createRequire } from 'node:module';
import { basename, dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import { cacheDirectory } from '../paths.js';

/**
 * The wrapper Node gives a CommonJS module, which scripts/bundle.mjs writes around each file this loads,
 * on a line of its own: V8 compiles the file's text as it is (no joined copy of ~1 MB of source to
 * allocate at each start) and line numbers in stack traces are the file's.
 */
export const WRAPPER = {
  head: '(function (exports, require, module, __filename, __dirname) {\n',
  tail: '\n})',
};

/**
 * `AGENT_CODE_CACHE`: a folder to keep the cache in, or `0`/`off` for none; else
 * `$XDG_CACHE_HOME/agent/code`, else `~/.cache/agent/code`. Undefined when turned off.
 */
export function codeCacheDirectory(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const setting = env.AGENT_CODE_CACHE?.trim();
  if (setting === '0' || setting?.toLowerCase() === 'off') return undefined;
  const base = setting || join(cacheDirectory(env), 'code');
  return join(base, `${process.version}-${process.arch}`);
}

interface Pending {
  script: Script;
  file: string;
}

/**
 * Loads the `.cjs` files of `bundleDir` named in `hashes` (each file's content hash), which are written
 * wrapped (WRAPPER), with a code cache kept in `cacheDir` (none if undefined); other files load as usual.
 */
export function installCodeCache(
  bundleDir: string,
  given: string | undefined,
  hashes: Record<string, string>,
): void {
  const cacheDir = given && isPrivate(given) ? given : undefined;
  const pending: Pending[] = [];
  const nodeRequire = createRequire(import.meta.url);
  const loaded = nodeRequire.cache;
  // The node_modules folders a bundled file's packages come from: the same for every file.
  let paths: string[] | undefined;

  const run = (module: Module, filename: string, hash: string) => {
    // Paths joined by hand: both parts are known to be plain (path.join's normalizing is per file).
    const file = cacheDir && `${cacheDir}${sep}${cacheName(basename(filename), hash)}`;
    let cachedData: Buffer | undefined;
    try {
      if (file) cachedData = readFileSync(file);
    } catch {}
    const script = new Script(readFileSync(filename, 'utf8'), { filename, cachedData });
    if (file && (!cachedData || script.cachedDataRejected)) pending.push({ script, file });
    const wrapper = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => void;
    wrapper.call(module.exports, module.exports, requireFor(module), module, filename, bundleDir);
  };

  /**
   * The `require` a bundled file is given: another bundled file is taken straight from its path (the
   * files require each other some thirty times per start, and Node's resolution would look each up on
   * disk and in package.json), anything else goes to Node's own.
   */
  const requireFor = (parent: Module): NodeJS.Require => {
    const require = (id: string) => {
      const name = id.startsWith('./') ? id.slice(2) : '';
      const hash = hashes[name];
      if (!hash) return parent.require(id);
      const filename = `${bundleDir}${sep}${name}`;
      const known = loaded[filename];
      if (known) return known.exports;
      const module = new Module(filename, parent);
      module.filename = filename;
      paths ??= parent.paths;
      module.paths = paths;
      loaded[filename] = module;
      try {
        run(module, filename, hash);
      } catch (error) {
        delete loaded[filename];
        throw error;
      }
      module.loaded = true;
      return module.exports;
    };
    // What else a require function has, for code that looks: nothing in the bundle does today.
    require.resolve = ((request: string, options?: { paths?: string[] }) =>
      createRequire(parent.filename).resolve(request, options)) as NodeJS.RequireResolve;
    require.cache = loaded;
    require.main = nodeRequire.main;
    require.extensions = nodeRequire.extensions;
    return require as NodeJS.Require;
  };

  // The first file (front.cjs, from bin/agent.js) comes through Node's loader: require.extensions is
  // deprecated for loading other languages, but still how a loader sees each file.
  const fallback = nodeRequire.extensions['.js'];
  nodeRequire.extensions['.cjs'] = (module: NodeJS.Module, filename: string) => {
    const hash = dirname(filename) === bundleDir ? hashes[basename(filename)] : undefined;
    if (hash) run(module as Module, filename, hash);
    else fallback(module, filename);
  };
  if (cacheDir) writeCaches(cacheDir, hashes, pending);
}

/**
 * Writes the caches `pending` lists as the first HTTP request is made (Node's fetch and the undici
 * package publish the channel): what runs before it, the part a user waits through. Written before that
 * request is sent, not after: it delays only a first run's request, and a process stopped once its
 * request is out (a start-up benchmark) still leaves the cache for the next. Files loaded after it (the
 * web reader, the checks) have theirs written at exit.
 */
function writeCaches(cacheDir: string, hashes: Record<string, string>, pending: Pending[]): void {
  const channel = 'undici:request:create';
  let pruned = false;
  const write = () => {
    unsubscribe(channel, write);
    const batch = pending.splice(0);
    if (batch.length === 0) return;
    if (!pruned)
      prune(cacheDir, new Set(Object.entries(hashes).map(([name, hash]) => cacheName(name, hash))));
    pruned = true;
    for (const { script, file } of batch) if (!save(file, script.createCachedData())) break;
  };
  subscribe(channel, write);
  process.once('exit', write);
}

/** bin/agent.js: loads dist/bundle (this file's folder), with the cache unless it is turned off. */
export function boot(): void {
  const bundleDir = dirname(fileURLToPath(import.meta.url));
  let hashes: Record<string, string>;
  try {
    hashes = JSON.parse(readFileSync(join(bundleDir, 'hashes.json'), 'utf8'));
  } catch (error) {
    // Written with the bundle: without it the wrapped files cannot load.
    process.stderr.write(
      `agent: this installation is incomplete (${join(bundleDir, 'hashes.json')}: ${(error as Error).message}); reinstall agent, or run npm run build in its folder.\n`,
    );
    process.exit(1);
  }
  installCodeCache(bundleDir, codeCacheDirectory(), hashes);
}

const cacheName = (name: string, hash: string) => `${name}.${hash}.v8`;

/** Writes one cache file whole (a temporary file, renamed); false if the folder cannot be written. */
function save(file: string, data: Buffer): boolean {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(temporary, data, { mode: 0o600 });
    renameSync(temporary, file);
    return true;
  } catch {
    try {
      rmSync(temporary, { force: true });
    } catch {}
    return false;
  }
}

/**
 * Removes caches of files no longer in the bundle (an older build's), so the folder does not grow, and
 * temporary files a killed process left (older than a minute: another may be writing one now).
 */
function prune(cacheDir: string, wanted: Set<string>): void {
  try {
    for (const entry of readdirSync(cacheDir)) {
      const path = join(cacheDir, entry);
      if (entry.endsWith('.v8') ? !wanted.has(entry) : entry.endsWith('.tmp') && isOld(path))
        rmSync(path, { force: true });
    }
  } catch {}
}

/**
 * Whether `dir` may hold code this process runs: this user's own folder, writable by no one else, or one
 * still to be made (private) in a folder of this user's. A cache file is code (V8 does not check it
 * beyond its version and size), so a folder others can write to, such as a shared XDG_CACHE_HOME, is
 * not used; nor is another user's (`sudo` keeping HOME would otherwise leave a folder of root's in the
 * user's cache).
 */
function isPrivate(dir: string, toMake = false): boolean {
  let info: Stats;
  try {
    info = statSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return false;
    const parent = dirname(dir);
    return parent !== dir && isPrivate(parent, true);
  }
  if (process.platform === 'win32') return true;
  const own = info.isDirectory() && info.uid === process.getuid?.();
  // In a folder to be made, only this user can write, whoever else may write next to it.
  return own && (toMake || (info.mode & 0o022) === 0);
}

const isOld = (path: string) => Date.now() - statSync(path).mtimeMs > 60_000;
