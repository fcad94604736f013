#!/usr/bin/env node
// Bundles the compiled CLI (dist/cli/main.js) into dist/bundle/, so that `--version` and `--help` load one
// file besides bin/agent.js, and each command a few more:
// - front.cjs, the front end: dist/cli/main.js (commander, the program definitions, error reporting) and
//   everything it imports statically, in one CommonJS file that also exports those modules. bin/agent.js
//   is CommonJS too (bin/package.json), so Node starts without its ES module loader (about 8 ms of its
//   own modules to compile), which `--version` and `--help` never need;
// - one ES module per lazily loaded part (each command, SDK, reader), with chunks for the code they share,
//   but a command that loads nothing else is one CommonJS file (see below); all take the front end's
//   modules from front.cjs (require()d, already loaded), so there is one copy of each (one AgentError
//   class, one record of the open database for error reports).
// The files sit two levels below the package root, like every compiled module, so paths built from
// import.meta.url (package.json, content/, db/migrations/) still resolve. Very large or rarely used packages
// stay external and load from node_modules when needed. better-sqlite3's JavaScript is bundled (a dozen
// CommonJS files less at each start); its compiled addon stays in node_modules, given by path when a
// database is opened (withAddon in src/store/sqlite/open.ts).
import { rmSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = `${root}dist`;
const outdir = `${dist}/bundle`;

/**
 * commander requires node:child_process at load, only to run executable subcommands, which agent has
 * none of; loading it costs every command a few milliseconds. It is required on first use instead.
 */
const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(b) {
    b.onResolve({ filter: /^node:child_process$/ }, (args) =>
      /[\\/]commander[\\/]/.test(args.importer) ? { path: 'child_process', namespace: 'lazy' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy' }, () => ({
      contents: "module.exports = { spawn: (...args) => require('node:child_process').spawn(...args) };",
      loader: 'js',
    }));
  },
};

/**
 * zod's entry re-exports every locale (`z.locales`, half of zod's code: about 300 KB for V8 to compile at
 * the start of chat). agent never switches locale, and zod sets English itself (classic/schemas.js imports
 * locales/en.js directly), so the index of locales becomes English only.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/]/.test(args.importer)
        ? { path: resolve(args.resolveDir, args.path), namespace: 'zod-locales' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: "export { default as en } from './en.js';",
      resolveDir: dirname(args.path),
      loader: 'js',
    }));
  },
};

const common = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir,
  // Less source for V8 to scan at each start; names are kept, so stack traces still say where.
  minifyWhitespace: true,
  minifySyntax: true,
  // undici too: it is loaded lazily, and esbuild's CommonJS interop loses its named exports in a dynamic import.
  external: ['pdfjs-dist', 'mammoth', '@modelcontextprotocol/sdk', 'ajv', 'undici'],
  // Bundled CommonJS packages call require(); ESM has none, so each chunk gets one.
  banner: {
    js: "import { createRequire as __agentRequire } from 'node:module'; const require = __agentRequire(import.meta.url);",
  },
  logLevel: 'warning',
};

/** A compiled module of ours given by a relative import, as an absolute path; else undefined. */
const ownModule = (args) =>
  args.path.startsWith('.') && args.resolveDir.startsWith(dist)
    ? resolve(args.resolveDir, args.path)
    : undefined;

/** The name of the bundled file for a lazily loaded module: its path under dist/, e.g. cli-commands-cost. */
const lazyName = (path) => relative(dist, path).replace(/\.js$/, '').replaceAll(/[\\/]/g, '-');

rmSync(outdir, { recursive: true, force: true });

// The front end's own modules (the static closure of main.js), found by a first pass that writes nothing.
const front = `${dist}/cli/main.js`;
/** The modules the front end imports dynamically, by the name of their bundled file. */
const lazy = new Map();
/** Those bundled whole as CommonJS (see below), by name: the front end require()s them. */
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
      // import() would start Node's ES module loader: a CommonJS part is require()d on first use instead.
      return whole.has(name)
        ? { path: `./${name}.cjs`, namespace: 'whole' }
        : { path: `./${name}.js`, external: true };
    });
    b.onResolve({ filter: /.*/, namespace: 'whole' }, (args) => ({ path: args.path, external: true }));
    b.onLoad({ filter: /.*/, namespace: 'whole' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
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
const frontDynamic = Object.keys(scan.metafile.inputs)
  .filter(reachesDynamic)
  .map((input) => resolve(root, input));

/**
 * The PostgreSQL store, loaded only for a team database (store/open.js imports it dynamically): an ES
 * module of its own, which a command bundled whole may still import() (Node's ES module loader then
 * starts for a team database only).
 */
const POSTGRES = { name: 'store-postgres-open', path: `${dist}/store/postgres/open.js` };
const isPostgres = (args) => ownModule(args) === POSTGRES.path;

// A command whose code, and the front-end modules it calls, import nothing dynamically (but the
// PostgreSQL store) and no external package is the only part its process loads (cost, cache, db, notes,
// sessions). It is bundled whole as one
// CommonJS file: one file to load instead of half a dozen chunks, nothing loaded twice, and Node's ES
// module loader never starts (about 20 ms of `agent cost`).
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
  entryPoints: Object.fromEntries([...lazy].filter(([name]) => name.startsWith('cli-commands-'))),
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
const commonJs = {
  format: 'cjs',
  // CommonJS has no import.meta: the file's own URL stands in for it.
  define: { 'import.meta.url': '__agentUrl' },
  banner: { js: "const __agentUrl = require('node:url').pathToFileURL(__filename).href;" },
};
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
        ? { path: `./${POSTGRES.name}.js`, external: true }
        : frontModule(args) && { path: './front.cjs', external: true },
    );
  },
};
await build({
  ...common,
  ...commonJs,
  entryPoints: Object.fromEntries([...whole].map((name) => [name, lazy.get(name)])),
  outExtension: { '.js': '.cjs' },
  plugins: [lazyChildProcess, zodEnglishOnly, frontRequired],
});

// The other lazily loaded parts, ES modules with shared chunks; any of the front end's modules they import
// comes from front.cjs (no second copy), through one shared ES module that re-exports it: the exports are
// copied once, not at each import statement (about 60 copies of 90 names, ~2 ms), and no parse of
// front.cjs to find its exports.
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
await build({
  ...common,
  entryPoints: Object.fromEntries([
    ...[...lazy].filter(([name]) => !whole.has(name)),
    [POSTGRES.name, POSTGRES.path],
  ]),
  splitting: true,
  plugins: [lazyChildProcess, zodEnglishOnly, fromFront],
});
