#!/usr/bin/env node
// Kept tiny on purpose: everything lives in the bundled CLI (see scripts/bundle.mjs).
import '../dist/bundle/main.js';
