#!/usr/bin/env node
// Writes src/research/quantities/cldr.json: the words for scales, currencies and units, and the time-zone
// abbreviations, that ICU's CLDR data gives for the languages sources come in. Derived here, once, because
// formatting them at run time costs hundreds of milliseconds; test/research/quantities/cldr.test.ts
// derives them again from the running ICU and expects the same file.
//
// Usage: node scripts/cldr-tables.mjs [--check]   (--check: exit 1 when the file differs)
import { readFileSync, writeFileSync } from 'node:fs';
import { deriveTables } from './cldr-derive.mjs';

const file = new URL('../src/research/quantities/cldr.json', import.meta.url);
const text = `${JSON.stringify(deriveTables(), null, 0)}\n`;
if (process.argv.includes('--check')) {
  const same = readFileSync(file, 'utf8') === text;
  console.log(same ? 'cldr.json matches this ICU' : 'cldr.json differs from this ICU');
  process.exit(same ? 0 : 1);
}
writeFileSync(file, text);
console.log(
  `wrote ${file.pathname} (${text.length} bytes, ICU ${process.versions.icu}, CLDR ${process.versions.cldr})`,
);
