// What scripts/cldr-tables.mjs writes, derived from ICU's CLDR data through Intl (see there).

/** The languages sources are read in: scale, currency and unit words are taken from each. */
export const LOCALES = [
  'en',
  'en-GB',
  'en-IN',
  'de',
  'fr',
  'es',
  'it',
  'nl',
  'pt',
  'pl',
  'sv',
  'da',
  'nb',
  'fi',
  'cs',
  'ja',
  'zh',
  'ko',
  'hi',
];
/** The locales whose time-zone abbreviations sources use (EST, CET, MEZ, IST, JST, AEST, …). */
const ZONE_LOCALES = ['en-US', 'en-GB', 'en-IN', 'en-AU', 'en-CA', 'de', 'fr', 'ja', 'ko', 'zh'];

const put = (map, key, value) => {
  if (!key) return;
  const set = map.get(key) ?? new Set();
  set.add(value);
  map.set(key, set);
};
/** One value per key: the keys with one are kept, those with several are listed apart as ambiguous. */
const split = (map, order = (a, b) => (a < b ? -1 : a > b ? 1 : 0)) => {
  const one = {};
  const several = {};
  for (const [k, set] of [...map].sort(([a], [b]) => order(a, b))) {
    const values = [...set].sort();
    if (values.length === 1) one[k] = values[0];
    else several[k] = values;
  }
  return { one, several };
};
const word = (parts, type) =>
  parts
    .filter((p) => p.type === type)
    .map((p) => p.value)
    .join(' ')
    // No-break and narrow spaces are spaces once a text is normalised (NFKC).
    .replace(/\s+/gu, ' ')
    .trim()
    .toLowerCase();

export function deriveTables() {
  // Scales: `compact` notation's words, short and long, for 10^2 … 10^15 and the plural forms of 1, 2, 5.
  const scales = new Map();
  for (const locale of LOCALES)
    for (const compactDisplay of ['short', 'long']) {
      const f = new Intl.NumberFormat(locale, {
        notation: 'compact',
        compactDisplay,
        numberingSystem: 'latn',
      });
      for (let power = 2; power <= 15; power++)
        for (const m of [1, 1.5, 2, 5]) {
          const parts = f.formatToParts(m * 10 ** power);
          const scaleWord = word(parts, 'compact');
          const shown = Number(
            parts
              .filter((p) => p.type === 'integer' || p.type === 'decimal' || p.type === 'fraction')
              .map((p) => (p.type === 'decimal' ? '.' : p.value))
              .join(''),
          );
          if (!scaleWord || shown <= 0) continue;
          put(scales, scaleWord, Math.round((m * 10 ** power) / shown));
          // One Latin letter (k, M, B, T, L) is too often a unit or a name to be read as a scale.
          if (/^\p{Script=Latin}\.?$/u.test(scaleWord)) put(scales, scaleWord, 0);
        }
    }

  // Currencies: their names (singular and plural) and symbols in every locale; codes are read as codes.
  const currencies = new Map();
  // The currencies CLDR gives a symbol of their own (101 of 162): those in use; the rest are read by code.
  const codes = Intl.supportedValuesOf('currency').filter(
    (currency) =>
      new Intl.NumberFormat('en', { style: 'currency', currency, currencyDisplay: 'narrowSymbol' })
        .formatToParts(1)
        .find((p) => p.type === 'currency').value !== currency,
  );
  for (const locale of LOCALES)
    for (const currency of codes) {
      for (const currencyDisplay of ['name', 'symbol', 'narrowSymbol']) {
        const f = new Intl.NumberFormat(locale, {
          style: 'currency',
          currency,
          currencyDisplay,
          minimumFractionDigits: 0,
          maximumFractionDigits: 0,
        });
        for (const n of [1, 2, 5]) {
          const name = word(f.formatToParts(n), 'currency');
          if (!name || name === currency.toLowerCase()) continue;
          put(currencies, name, currency);
          // "svenska kronor" is also written "kronor", "złotych polskich" "złotych", "대한민국 원" "원".
          const words = name.split(' ');
          if (words.length === 2) for (const w of words) if (w.length > 1) put(currencies, w, currency);
        }
      }
    }

  // Units: CLDR's names and symbols for each unit, long and short, as the English symbol of that unit.
  const units = new Map();
  for (const unit of Intl.supportedValuesOf('unit')) {
    const symbol = word(
      new Intl.NumberFormat('en', { style: 'unit', unit, unitDisplay: 'short' }).formatToParts(2),
      'unit',
    );
    for (const locale of LOCALES)
      for (const unitDisplay of ['long', 'short'])
        for (const n of [1, 2, 5]) {
          const name = word(
            new Intl.NumberFormat(locale, { style: 'unit', unit, unitDisplay }).formatToParts(n),
            'unit',
          );
          put(units, name, symbol);
        }
  }

  // Time zones: each abbreviation with the offsets (minutes east of UTC) it stands for in January and July.
  const zones = new Map();
  const dates = [new Date(Date.UTC(2025, 0, 15, 12)), new Date(Date.UTC(2025, 6, 15, 12))];
  for (const timeZone of ['UTC', ...Intl.supportedValuesOf('timeZone')])
    for (const date of dates) {
      const offset = new Intl.DateTimeFormat('en', { timeZone, timeZoneName: 'longOffset' })
        .formatToParts(date)
        .find((p) => p.type === 'timeZoneName')
        .value.match(/GMT(?:([+-])(\d\d):(\d\d))?/);
      const minutes = offset[1]
        ? (offset[1] === '-' ? -1 : 1) * (Number(offset[2]) * 60 + Number(offset[3]))
        : 0;
      for (const locale of ZONE_LOCALES)
        for (const timeZoneName of ['short', 'shortGeneric']) {
          const name = new Intl.DateTimeFormat(locale, { timeZone, timeZoneName })
            .formatToParts(date)
            .find((p) => p.type === 'timeZoneName')?.value;
          // Only abbreviations: "GMT+1" is read as an offset, "Germany Time" is no abbreviation.
          if (name && /^\p{Lu}{2,5}$/u.test(name)) put(zones, name, minutes);
        }
    }
  const zoneTable = {};
  for (const [name, set] of [...zones].sort(([a], [b]) => (a < b ? -1 : 1)))
    zoneTable[name] = [...set].sort((a, b) => a - b);

  // Dates: month names (as written with a day, and alone) and the orders of day, month and year each
  // language writes, as templates: `{d}. {M} {y}`, `{d} de {M} de {y}`, `{y}年{m}月{d}日`.
  const months = new Map();
  const templates = new Set();
  const day = new Date(Date.UTC(2025, 1, 14));
  for (const locale of LOCALES) {
    for (let m = 0; m < 12; m++) {
      const date = new Date(Date.UTC(2025, m, 14));
      for (const month of ['long', 'short']) {
        const withDay = new Intl.DateTimeFormat(locale, { day: 'numeric', month, timeZone: 'UTC' })
          .formatToParts(date)
          .find((p) => p.type === 'month').value;
        const alone = new Intl.DateTimeFormat(locale, { month, timeZone: 'UTC' }).format(date);
        for (const name of [withDay, alone])
          if (!/\d/.test(name)) put(months, name.toLowerCase().replace(/\.$/, ''), m + 1);
      }
    }
    for (const options of [
      { dateStyle: 'long' },
      { dateStyle: 'medium' },
      { day: 'numeric', month: 'long', year: 'numeric' },
      { day: 'numeric', month: 'short', year: 'numeric' },
      { day: 'numeric', month: 'long' },
      { month: 'long', year: 'numeric' },
    ]) {
      const parts = new Intl.DateTimeFormat(locale, { ...options, timeZone: 'UTC' }).formatToParts(day);
      const template = parts
        .map((p) => {
          if (p.type === 'literal') return p.value.replace(/[{}]/g, '');
          if (p.type === 'year') return '{y}';
          if (p.type === 'day') return '{d}';
          if (p.type === 'month') return /\d/.test(p.value) ? `{m}${p.value.replace(/\d/g, '')}` : '{M}';
          return undefined;
        })
        .filter((t) => t !== undefined)
        .join('')
        .trim();
      // Only what names a day or a month of a year; all-numeric forms are the date reader's own.
      if (/\{[dm]\}|\{M\}/.test(template) && (template.includes('{M}') || /[^\d\s{}dmy./,-]/.test(template)))
        templates.add(template);
    }
  }
  const monthNames = split(months);

  const s = split(scales);
  const c = split(currencies);
  const u = split(units);
  return {
    icu: process.versions.icu,
    cldr: process.versions.cldr,
    scales: s.one,
    ambiguousScales: s.several,
    currencies: c.one,
    ambiguousCurrencies: c.several,
    units: u.one,
    ambiguousUnits: u.several,
    zones: zoneTable,
    // The first word of every scale and currency name, and the connectors before a currency (`de`).
    firstWords: [
      ...new Set(
        [...scales.keys(), ...currencies.keys(), 'de', 'di', 'del', 'of']
          .map((w) => w.split(' ')[0].replace(/\.$/, ''))
          .filter((w) => /^\p{Script=Latin}/u.test(w)),
      ),
    ].sort(),
    months: monthNames.one,
    dates: [...templates].sort(),
  };
}
