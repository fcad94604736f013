#!/usr/bin/env node
// Bundles the compiled CLI (dist/cli/main.js) into dist/bundle/: one file per lazily loaded part
// instead of hundreds of modules, which cuts start-up to the first model request by about a third
// (bench/first-request.mjs). The chunks sit two levels below the package root, like every compiled
// module, so paths built from import.meta.url (package.json, content/, db/migrations/) still resolve.
// Very large or rarely used packages stay external and load from node_modules when needed. better-sqlite3's
// JavaScript is bundled (a dozen CommonJS files less at each start); its compiled addon stays in
// node_modules, given by path when a database is opened (withAddon in src/store/open.ts).
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = `${root}dist/bundle`;

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

rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { main: `${root}dist/cli/main.js` },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Less source for V8 to scan at each start; names are kept, so stack traces still say where.
  minifyWhitespace: true,
  minifySyntax: true,
  // undici too: it is loaded lazily, and esbuild's CommonJS interop loses its named exports in a dynamic import.
  external: ['pdfjs-dist', 'mammoth', '@modelcontextprotocol/sdk', 'ajv', 'undici'],
  // Bundled CommonJS packages call require(); ESM has none, so each chunk gets one.
  banner: {
    js: "import { createRequire as __agentRequire } from 'node:module'; const require = __agentRequire(import.meta.url);",
  },
  plugins: [lazyChildProcess],
  logLevel: 'warning',
});
