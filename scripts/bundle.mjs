#!/usr/bin/env node
// Bundles the compiled CLI (dist/cli/main.js) into dist/bundle/: one file per lazily loaded part
// instead of hundreds of modules, which cuts start-up to the first model request by about a third
// (bench/first-request.mjs). The chunks sit two levels below the package root, like every compiled
// module, so paths built from import.meta.url (package.json, content/, db/migrations/) still resolve.
// Native, very large or rarely used packages stay external and load from node_modules when needed.
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = `${root}dist/bundle`;
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { main: `${root}dist/cli/main.js` },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // undici too: it is loaded lazily, and esbuild's CommonJS interop loses its named exports in a dynamic import.
  external: ['better-sqlite3', 'pdfjs-dist', 'mammoth', '@modelcontextprotocol/sdk', 'ajv', 'undici'],
  // Bundled CommonJS packages call require(); ESM has none, so each chunk gets one.
  banner: {
    js: "import { createRequire as __agentRequire } from 'node:module'; const require = __agentRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
