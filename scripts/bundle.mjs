#!/usr/bin/env node
// Bundles the compiled CLI (dist/cli/main.js) into dist/bundle/ in two builds, so that `--version`,
// `--help` and the start of every command load two files instead of a dozen:
// - front.js, the front end: dist/cli/run.js (commander, the program definitions, error reporting) and
//   everything it imports statically, in one file that also exports those modules;
// - main.js and one file per lazily loaded part (each command, SDK, reader), with chunks for the code
//   they share; they import the front end's modules from front.js, so there is one copy of each (one
//   AgentError class, one record of the open database for error reports).
// The files sit two levels below the package root, like every compiled module, so paths built from
// import.meta.url (package.json, content/, db/migrations/) still resolve. Very large or rarely used packages
// stay external and load from node_modules when needed. better-sqlite3's JavaScript is bundled (a dozen
// CommonJS files less at each start); its compiled addon stays in node_modules, given by path when a
// database is opened (withAddon in src/store/sqlite/open.ts).
import { rmSync } from 'node:fs';
import { relative, resolve } from 'node:path';
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

// The front end's own modules (the static closure of run.js), found by a first pass that writes nothing.
const front = `${dist}/cli/run.js`;
/** The modules the front end imports dynamically, by the name of their bundled file. */
const lazy = new Map();
const frontExternal = {
  name: 'front-external',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind !== 'dynamic-import') return undefined;
      const path = ownModule(args);
      if (!path) return undefined;
      lazy.set(lazyName(path), path);
      return { path: `./${lazyName(path)}.js`, external: true };
    });
  },
};
const scan = await build({
  ...common,
  entryPoints: [front],
  write: false,
  metafile: true,
  plugins: [lazyChildProcess, frontExternal],
});
const frontModules = Object.keys(scan.metafile.inputs)
  .map((input) => resolve(root, input))
  .filter((path) => path.startsWith(dist));

// front.js: one file that re-exports every front-end module, for the lazily loaded parts to share.
await build({
  ...common,
  stdin: {
    contents: frontModules.map((path) => `export * from ${JSON.stringify(path)};`).join('\n'),
    resolveDir: root,
    sourcefile: 'front.js',
  },
  entryNames: 'front',
  outfile: `${outdir}/front.js`,
  outdir: undefined,
  plugins: [lazyChildProcess, frontExternal],
});

// main.js and the lazily loaded parts; any of the front end's modules they import comes from front.js.
const fromFront = {
  name: 'from-front',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      const path = ownModule(args);
      return path && frontModules.includes(path) ? { path: './front.js', external: true } : undefined;
    });
  },
};
await build({
  ...common,
  entryPoints: { main: `${dist}/cli/main.js`, ...Object.fromEntries(lazy) },
  splitting: true,
  plugins: [lazyChildProcess, fromFront],
});
