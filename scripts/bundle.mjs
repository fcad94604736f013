#!/usr/bin/env node
// Bundles the compiled CLI (dist/cli/main.js) into dist/bundle/, CommonJS files all (plugins in
// bundle-plugins.mjs), so that `--version` and `--help` load one file besides bin/agent.js and boot.cjs,
// and each command a few more:
// - boot.cjs, loaded first by bin/agent.js: compiles the other files with V8's code cache (see
//   src/boot/code-cache.ts), keyed by the content hashes this script writes to hashes.json;
// - front.cjs, the front end: dist/cli/main.js (commander, the program definitions, error reporting) and
//   everything it imports statically, in one file that also exports those modules;
// - one file per lazily loaded part (each command, SDK, reader), with chunks for the code they share, but
//   a command that loads nothing else is one file (see below); all take the front end's modules from
//   front.cjs (require()d, already loaded), so there is one copy of each (one AgentError class, one record
//   of the open database for error reports).
// Everything is CommonJS so that Node's ES module loader never starts for our own code (its start and its
// per-module work cost ~10 ms), and so that boot.cjs can give V8 a code cache, which Node 20 cannot do for
// an ES module. esbuild splits shared chunks only for ES modules: the parts are split as ES modules, then
// each file is turned into CommonJS on its own (an import() of our own file becoming a require()).
// The files sit two levels below the package root, like every compiled module, so paths built from
// import.meta.url (package.json, content/, db/migrations/) still resolve. Very large or rarely used packages
// stay external and load from node_modules when needed. better-sqlite3's JavaScript is bundled (a dozen
// CommonJS files less at each start); its compiled addon stays in node_modules, given by path when a
// database is opened (withAddon in src/store/sqlite/open.ts).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, transform } from 'esbuild';
import { checkOpenaiStubs, lazyChildProcess, openaiUsedOnly, zodEnglishOnly } from './bundle-plugins.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = `${root}dist`;
const target = `${dist}/bundle`;
// Built beside the live bundle and swapped in at the end: a CLI started meanwhile (another test suite,
// a user's agent during a rebuild) keeps running the whole old bundle, never a half-written one.
const outdir = `${dist}/bundle.next-${process.pid}`;

const common = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir,
  // Less source for V8 to scan at each start; names are kept, so stack traces still say where.
  minifyWhitespace: true,
  minifySyntax: true,
  // undici and sqlite-vec too: required on first use (src/web/net/safe-fetch.ts,
  // src/store/sqlite/vectors.ts); sqlite-vec finds its prebuilt library next to its own package
  // (require.resolve), so it loads from node_modules.
  external: ['pdfjs-dist', 'mammoth', '@modelcontextprotocol/sdk', 'ajv', 'undici', 'sqlite-vec'],
  logLevel: 'warning',
};

/**
 * A bundled file of ours that an import() loads: a module that require()s it, so that esbuild turns the
 * import() into a require() (no ES module loader). Resolve to `required('./name.cjs')`.
 */
const required = (path) => ({ path, namespace: 'required' });
const requiredStubs = (b) => {
  b.onResolve({ filter: /.*/, namespace: 'required' }, (args) => ({ path: args.path, external: true }));
  b.onLoad({ filter: /.*/, namespace: 'required' }, (args) => ({
    contents: `module.exports = require(${JSON.stringify(args.path)});`,
    loader: 'js',
  }));
};

/** A compiled module of ours given by a relative import, as an absolute path; else undefined. */
const ownModule = (args) =>
  args.path.startsWith('.') && args.resolveDir.startsWith(dist)
    ? resolve(args.resolveDir, args.path)
    : undefined;

/**
 * The name of the bundled file for a lazily loaded module: its path under dist/, e.g. cli-commands-cost;
 * a folder's index.js by the folder's path (formats-pdf).
 */
const lazyName = (path) =>
  relative(dist, path)
    .replace(/(?:[\\/]index)?\.js$/, '')
    .replaceAll(/[\\/]/g, '-');

rmSync(outdir, { recursive: true, force: true });

// The front end's own modules (the static closure of main.js), found by a first pass that writes nothing.
const front = `${dist}/cli/main.js`;
/** The modules the front end imports dynamically, by the name of their bundled file. */
const lazy = new Map();
/** Those bundled whole, with no chunks (see below), by name. */
const whole = new Set();
const frontExternal = {
  name: 'front-external',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind !== 'dynamic-import') return undefined;
      const path = ownModule(args);
      if (!path) return undefined;
      const name = lazyName(path);
      lazy.set(name, path);
      return required(`./${name}.cjs`);
    });
    requiredStubs(b);
  },
};
const scan = await build({
  ...common,
  entryPoints: [front],
  write: false,
  metafile: true,
  plugins: [lazyChildProcess, zodEnglishOnly, frontExternal],
});
const frontModules = Object.keys(scan.metafile.inputs)
  .map((input) => resolve(root, input))
  .filter((path) => path.startsWith(dist));
/** A front-end module given by a relative import, as an absolute path; else undefined. */
const frontModule = (args) => {
  const path = ownModule(args);
  return path && frontModules.includes(path) ? path : undefined;
};
/**
 * Front-end modules that import a part dynamically, themselves or through the modules they import (the
 * program definitions, the provider registry).
 */
const reaches = new Map();
const reachesDynamic = (input) => {
  if (!reaches.has(input)) {
    reaches.set(input, false); // an import cycle adds nothing
    const { imports } = scan.metafile.inputs[input];
    reaches.set(
      input,
      imports.some(
        (i) => i.kind === 'dynamic-import' || (scan.metafile.inputs[i.path] && reachesDynamic(i.path)),
      ),
    );
  }
  return reaches.get(input);
};
// Plugin callbacks run in parallel, so the parts were found in no fixed order: in name order, the same
// source always bundles to the same files (and the same content hashes, which name the code cache).
const parts = [...lazy].sort(([a], [b]) => (a < b ? -1 : 1));
const frontDynamic = Object.keys(scan.metafile.inputs)
  .filter(reachesDynamic)
  .map((input) => resolve(root, input));

/**
 * The PostgreSQL store, loaded only for a team database (store/open.js imports it dynamically): a part of
 * its own, which a command bundled whole require()s when it needs it.
 */
const POSTGRES = { name: 'store-postgres-open', path: `${dist}/store/postgres/open.js` };
const isPostgres = (args) => ownModule(args) === POSTGRES.path;

// A command whose code, and the front-end modules it calls, import nothing dynamically (but the
// PostgreSQL store) and no external package is the only part its process loads (cost, cache, db, notes,
// sessions). It is bundled whole as one file: one file to load instead of half a dozen chunks.
const frontAsExternal = {
  name: 'front-as-external',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      // Listed, not inlined, so that the probe sees it.
      if (args.kind === 'dynamic-import')
        return isPostgres(args)
          ? { path: POSTGRES.name, external: true }
          : { path: args.path, external: true };
      const path = frontModule(args);
      return path && { path, external: true };
    });
  },
};
const probe = await build({
  ...common,
  entryPoints: Object.fromEntries(parts.filter(([name]) => name.startsWith('cli-commands-'))),
  write: false,
  metafile: true,
  plugins: [lazyChildProcess, zodEnglishOnly, frontAsExternal],
});
for (const output of Object.values(probe.metafile.outputs)) {
  if (!output.entryPoint) continue;
  const alone = output.imports.every(
    (i) =>
      i.path === POSTGRES.name ||
      (i.kind !== 'dynamic-import' &&
        (isBuiltin(i.path) || (frontModules.includes(i.path) && !frontDynamic.includes(i.path)))),
  );
  if (alone) whole.add(lazyName(resolve(root, output.entryPoint)));
}

// front.cjs: one CommonJS file that re-exports every front-end module, for the lazily loaded parts to share.
// What each file starts with: strict mode first (our code was written as ES modules, which are strict;
// a banner before esbuild's own "use strict" would leave it an ordinary string); then, as CommonJS has no
// import.meta, the file's own URL to stand in for it (made when used: most files never ask); and
// __agentLazy (see lazyBuiltins below).
const fileUrl = { 'import.meta.url': '__agentMeta.url' };
const BANNER = [
  '"use strict";',
  "const __agentMeta = { get url() { return require('node:url').pathToFileURL(__filename).href; } };",
  'const __agentLazy = (id) => { let m; const load = () => (m ??= require(id)); return new Proxy({}, {',
  ' get: (_, key) => load()[key], has: (_, key) => key in load(), ownKeys: () => Reflect.ownKeys(load()),',
  ' getOwnPropertyDescriptor: (_, key) => { const d = Reflect.getOwnPropertyDescriptor(load(), key);',
  ' if (d) d.configurable = true; return d; } }); };',
].join('\n');
const commonJs = { format: 'cjs', define: fileUrl, banner: { js: BANNER } };
await build({
  ...common,
  ...commonJs,
  stdin: {
    contents: frontModules.map((path) => `export * from ${JSON.stringify(path)};`).join('\n'),
    resolveDir: root,
    sourcefile: 'front.cjs',
  },
  outfile: `${outdir}/front.cjs`,
  outdir: undefined,
  plugins: [lazyChildProcess, zodEnglishOnly, frontExternal],
});

// The commands bundled whole, each taking the front end's modules from front.cjs.
const frontRequired = {
  name: 'front-required',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) =>
      args.kind === 'dynamic-import' && isPostgres(args)
        ? required(`./${POSTGRES.name}.cjs`)
        : frontModule(args) && { path: './front.cjs', external: true },
    );
    requiredStubs(b);
  },
};
await build({
  ...common,
  ...commonJs,
  entryPoints: Object.fromEntries(parts.filter(([name]) => whole.has(name))),
  outExtension: { '.js': '.cjs' },
  plugins: [lazyChildProcess, zodEnglishOnly, frontRequired],
});

// The other lazily loaded parts with shared chunks, split as ES modules (esbuild splits no other format),
// then each file turned into CommonJS; any of the front end's modules they import comes from front.cjs (no
// second copy), through one shared module that re-exports it: the exports are copied once, not at each
// import statement (about 60 copies of 90 names, ~2 ms).
const fromFront = {
  name: 'from-front',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.namespace !== 'front') return frontModule(args) && { path: 'front', namespace: 'front' };
      return args.path === 'front-cjs'
        ? { path: args.path, namespace: 'front' }
        : { path: args.path, external: true };
    });
    b.onLoad({ filter: /^front$/, namespace: 'front' }, () => ({
      contents: "export * from 'front-cjs';",
      loader: 'js',
    }));
    b.onLoad({ filter: /^front-cjs$/, namespace: 'front' }, () => ({
      contents: "module.exports = require('./front.cjs');",
      loader: 'js',
    }));
  },
};
const split = await build({
  ...common,
  entryPoints: Object.fromEntries([
    ...parts.filter(([name]) => !whole.has(name)),
    [POSTGRES.name, POSTGRES.path],
  ]),
  splitting: true,
  outExtension: { '.js': '.cjs' },
  define: fileUrl,
  write: false,
  metafile: true,
  plugins: [lazyChildProcess, zodEnglishOnly, openaiUsedOnly, fromFront],
});
checkOpenaiStubs();
// A file's import() of another of ours (a part, a chunk esbuild split off for a dynamic import) becomes a
// require() when the promise is taken: the same order of evaluation, and no ES module loader.
const ownImport = /\bimport\("(\.\/[\w.-]+\.cjs)"\)/g;
const ownImportCount = (output) =>
  output.imports.filter((i) => i.kind === 'dynamic-import' && !i.external).length;
for (const file of split.outputFiles) {
  const path = relative(root, file.path);
  const found = [...file.text.matchAll(ownImport)].length;
  const expected = ownImportCount(split.metafile.outputs[path]);
  if (found !== expected)
    throw new Error(`${path}: found ${found} import() of our own files where esbuild made ${expected}`);
  const commonJsText = await transform(file.text.replace(ownImport, '__agentImport("$1")'), {
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    minifyWhitespace: true,
    minifySyntax: true,
    banner: `${BANNER}\nconst __agentImport = (path) => Promise.resolve().then(() => require(path));`,
    sourcefile: path,
    logLevel: 'warning',
  });
  writeFileSync(file.path, commonJsText.code);
}

/**
 * Node's modules that are not loaded when Node starts and cost a few milliseconds each to load (crypto
 * alone ~5 ms): where our code imports one, the module is required when first used instead of when the
 * file loads, through a stand-in that forwards every property (the import's uses are `import_x.name`,
 * so nothing else changes). `agent research` thereby sends its first request without loading
 * fs/promises, dns/promises or timers/promises, which it needs only later (crypto, zlib and net Node's
 * fetch loads anyway).
 */
const LAZY_BUILTINS = [
  'child_process',
  'crypto',
  'dns',
  'dns/promises',
  'fs/promises',
  'http',
  'http2',
  'https',
  'net',
  'perf_hooks',
  'readline',
  'readline/promises',
  'stream/web',
  'timers/promises',
  'tls',
  'v8',
  'worker_threads',
  'zlib',
];
const lazyBuiltin = new RegExp(
  `\\b(import_[\\w$]+)=require\\("node:(${LAZY_BUILTINS.join('|').replaceAll('/', '\\/')})"\\)`,
  'g',
);
// boot.cjs, and the content hash of each bundled file, which names its code cache. A file that calls
// import() (of a package kept external: pdf.js, which is an ES module) gets none: V8 has no
// import() callback for a script compiled with a cache on Node 20 (and Node's would print a warning), so
// Node's own loader compiles it. Inside a string a call is preceded by a quote; a call never is.
await build({
  ...common,
  ...commonJs,
  entryPoints: { boot: `${dist}/boot/code-cache.js` },
  outExtension: { '.js': '.cjs' },
});
// The files boot.cjs loads are written inside the CommonJS wrapper (WRAPPER, see there).
const { WRAPPER } = await import(pathToFileURL(`${dist}/boot/code-cache.js`).href);
const callsImport = (text) => /(?<![\w$.'"`])import\(/.test(text);
const hashes = {};
// One pass over the files (boot.cjs aside): builtins made lazy, then wrapped and hashed.
for (const name of readdirSync(outdir).filter((n) => n.endsWith('.cjs') && n !== 'boot.cjs')) {
  const built = readFileSync(`${outdir}/${name}`, 'utf8');
  if (!built.startsWith(BANNER)) throw new Error(`${name} does not start with the banner`);
  const text = built.replace(lazyBuiltin, '$1=__agentLazy("node:$2")');
  if (callsImport(text)) {
    if (text !== built) writeFileSync(`${outdir}/${name}`, text);
    continue;
  }
  const wrapped = WRAPPER.head + text + WRAPPER.tail;
  writeFileSync(`${outdir}/${name}`, wrapped);
  hashes[name] = createHash('sha256').update(wrapped).digest('base64url').slice(0, 16);
}
writeFileSync(`${outdir}/hashes.json`, `${JSON.stringify(hashes, null, 1)}\n`);

// The swap: the old bundle moves aside (a rename, so a process that has it open keeps its files) and the
// new one takes its place; only the moment between the two renames has no bundle.
const old = `${dist}/bundle.old-${process.pid}`;
if (existsSync(target)) renameSync(target, old);
renameSync(outdir, target);
rmSync(old, { recursive: true, force: true });
