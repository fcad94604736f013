#!/usr/bin/env node
// Kept tiny on purpose: everything lives in the bundled CLI (see scripts/bundle.mjs). CommonJS (see
// package.json here), like the bundle: Node then starts without its ES module loader. boot.cjs first, so
// that the bundle's files compile with V8's code cache (src/boot/code-cache.ts).
require('../dist/bundle/boot.cjs').boot();
require('../dist/bundle/front.cjs').start();
