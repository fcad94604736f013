#!/usr/bin/env node
// Kept tiny on purpose: everything lives in the compiled CLI.
import '../dist/cli/main.js';
