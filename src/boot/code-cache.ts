// The bundled CLI's files (dist/bundle/*.cjs) are compiled with V8's code cache, kept per user: a start
// then deserializes the functions it ran last time instead of parsing and compiling ~1 MB of JavaScript
// (about a third of `agent research`'s time to its first model request). Node 22 does this itself
// (module.enableCompileCache); Node 20 does not, so this is bundled as dist/bundle/boot.cjs and loaded by
// bin/agent.js before anything else. Only our own bundle goes through it; packages load as usual.
//
// A cache file is named for the bundled file and its content hash (dist/bundle/hashes.json, written by
// scripts/bundle.mjs), in a folder per Node version and architecture: V8 itself refuses a cache made by
// another V8 or with other flags, but it checks only the source's length, so the name carries the hash.
// A process that found no usable cache for a file writes one when it first sends an HTTP request (while
// it waits for the reply), or at exit if it sends none. Writes go through a temporary file
// and a rename, so a process reading never sees half a file; any failure to read or write only means
// compiling as Node would. A file that calls import() has no hash (see scripts/bundle.mjs): a script
// compiled here has no import() callback on Node 20.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

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
  const base = setting || join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'agent', 'code');
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
  cacheDir: string | undefined,
  hashes: Record<string, string>,
): void {
  const pending: Pending[] = [];
  // require.extensions: deprecated for loading other languages, still how a loader sees each file.
  const extensions = createRequire(import.meta.url).extensions;
  const fallback = extensions['.js'];

  extensions['.cjs'] = (module: NodeJS.Module, filename: string) => {
    const name = basename(filename);
    const hash = hashes[name];
    if (dirname(filename) !== bundleDir || !hash) return fallback(module, filename);
    const file = cacheDir && join(cacheDir, cacheName(name, hash));
    let cachedData: Buffer | undefined;
    try {
      if (file) cachedData = readFileSync(file);
    } catch {}
    const script = new Script(readFileSync(filename, 'utf8'), { filename, cachedData });
    if (file && (!cachedData || script.cachedDataRejected)) pending.push({ script, file });
    const wrapper = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => void;
    wrapper.call(module.exports, module.exports, requireFor(module, filename), module, filename, bundleDir);
  };
  if (cacheDir) writeOnce(cacheDir, hashes, pending);
}

/**
 * Writes the caches `pending` lists once: when the first request goes out (Node's fetch and the undici
 * package publish the first channel, node:http the second), or at exit if none does. A cache then holds
 * what runs before the first request, the part a user waits through; what runs later compiles while
 * the process waits for the network.
 */
function writeOnce(cacheDir: string, hashes: Record<string, string>, pending: Pending[]): void {
  const channels = ['undici:request:create', 'http.client.request.start'];
  let done = false;
  const write = () => {
    if (done) return;
    done = true;
    for (const channel of channels) unsubscribe(channel, onRequest);
    if (pending.length === 0) return;
    prune(cacheDir, new Set(Object.entries(hashes).map(([name, hash]) => cacheName(name, hash))));
    for (const { script, file } of pending) if (!save(file, script.createCachedData())) break;
  };
  // After the request has been handed to the network, not inside the call that makes it.
  const onRequest = () => setImmediate(write);
  for (const channel of channels) subscribe(channel, onRequest);
  process.once('exit', write);
}

/** bin/agent.js: loads dist/bundle (this file's folder), with the cache unless it is turned off. */
export function boot(): void {
  const bundleDir = dirname(fileURLToPath(import.meta.url));
  // Written with the bundle: without it the wrapped files cannot load (a broken install).
  const hashes = JSON.parse(readFileSync(join(bundleDir, 'hashes.json'), 'utf8'));
  installCodeCache(bundleDir, codeCacheDirectory(), hashes);
}

const cacheName = (name: string, hash: string) => `${name}.${hash}.v8`;

/**
 * The `require` a module is given: Node's own module.require, without createRequire's set-up for each
 * file (a Module object and its node_modules paths); `require.resolve` and the rest make it when used.
 */
function requireFor(module: NodeJS.Module, filename: string): NodeJS.Require {
  const require = (id: string) => module.require(id);
  const full = () => createRequire(filename);
  return Object.defineProperties(require, {
    resolve: { get: () => full().resolve },
    cache: { get: () => full().cache },
    main: { get: () => full().main },
    extensions: { get: () => full().extensions },
  }) as NodeJS.Require;
}

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

const isOld = (path: string) => Date.now() - statSync(path).mtimeMs > 60_000;
