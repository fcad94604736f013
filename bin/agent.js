#!/usr/bin/env node
// Kept tiny on purpose: everything lives in the bundled CLI (see scripts/bundle.mjs). CommonJS (see
// package.json here), like the front end it loads: Node then starts without its ES module loader.
require('../dist/bundle/front.cjs').start();
