// Units of measure by dimension, each with its factor to the dimension's base unit, so that a quantity
// written in one unit compares with the same quantity written in another (3 miles ≈ 4.8 km, 45 minutes =
// 0.75 h, 1 GiB = 1,024 MiB). Symbols are case-sensitive (mW is not MW, Mb is not MB); names are not.
// Months and years are their own dimension: 30 days is not a month.

export interface Measure {
  dim: string;
  /** Base units per unit. */
  factor: number;
  /** Added after the factor (temperatures: the base is °C). */
  offset?: number;
}

type Table = Record<string, [dim: string, factor: number, offset?: number]>;

// Symbols: matched as written.
const SYMBOLS: Table = {
  ns: ['time', 1e-9],
  µs: ['time', 1e-6],
  μs: ['time', 1e-6],
  ms: ['time', 1e-3],
  s: ['time', 1],
  h: ['time', 3600],
  mm: ['length', 1e-3],
  cm: ['length', 1e-2],
  m: ['length', 1],
  km: ['length', 1e3],
  µm: ['length', 1e-6],
  nm: ['length', 1e-9],
  in: ['length', 0.0254],
  ft: ['length', 0.3048],
  yd: ['length', 0.9144],
  mi: ['length', 1609.344],
  nmi: ['length', 1852],
  mg: ['mass', 1e-6],
  g: ['mass', 1e-3],
  kg: ['mass', 1],
  t: ['mass', 1e3],
  Mt: ['mass', 1e9],
  Gt: ['mass', 1e12],
  lb: ['mass', 0.45359237],
  lbs: ['mass', 0.45359237],
  oz: ['mass', 0.028349523125],
  ml: ['volume', 1e-3],
  mL: ['volume', 1e-3],
  cl: ['volume', 1e-2],
  l: ['volume', 1],
  L: ['volume', 1],
  hl: ['volume', 100],
  hL: ['volume', 100],
  // US kitchen measures, as recipes and nutrition labels use them.
  tsp: ['volume', 0.00492892159375],
  tbsp: ['volume', 0.01478676478125],
  'fl oz': ['volume', 0.0295735295625],
  'm³': ['volume', 1e3],
  m3: ['volume', 1e3],
  'm²': ['area', 1],
  m2: ['area', 1],
  'km²': ['area', 1e6],
  km2: ['area', 1e6],
  ha: ['area', 1e4],
  '°C': ['temp', 1],
  '°F': ['temp', 5 / 9, -32 * (5 / 9)],
  K: ['temp', 1, -273.15],
  'km/h': ['speed', 1 / 3.6],
  kph: ['speed', 1 / 3.6],
  kmh: ['speed', 1 / 3.6],
  mph: ['speed', 0.44704],
  'm/s': ['speed', 1],
  kn: ['speed', 1852 / 3600],
  W: ['power', 1],
  kW: ['power', 1e3],
  MW: ['power', 1e6],
  GW: ['power', 1e9],
  hp: ['power', 745.6998715822702],
  J: ['energy', 1],
  kJ: ['energy', 1e3],
  MJ: ['energy', 1e6],
  Wh: ['energy', 3600],
  kWh: ['energy', 3.6e6],
  MWh: ['energy', 3.6e9],
  GWh: ['energy', 3.6e12],
  TWh: ['energy', 3.6e15],
  kcal: ['energy', 4184],
  Hz: ['frequency', 1],
  kHz: ['frequency', 1e3],
  MHz: ['frequency', 1e6],
  GHz: ['frequency', 1e9],
  B: ['data', 1],
  kB: ['data', 1e3],
  KB: ['data', 1e3],
  MB: ['data', 1e6],
  GB: ['data', 1e9],
  TB: ['data', 1e12],
  PB: ['data', 1e15],
  KiB: ['data', 1024],
  MiB: ['data', 1024 ** 2],
  GiB: ['data', 1024 ** 3],
  TiB: ['data', 1024 ** 4],
  bit: ['data', 1 / 8],
  kb: ['data', 1e3 / 8],
  Kb: ['data', 1e3 / 8],
  Mb: ['data', 1e6 / 8],
  Gb: ['data', 1e9 / 8],
  Tb: ['data', 1e12 / 8],
  kbit: ['data', 1e3 / 8],
  Mbit: ['data', 1e6 / 8],
  Gbit: ['data', 1e9 / 8],
  bps: ['rate', 1 / 8],
  kbps: ['rate', 1e3 / 8],
  Kbps: ['rate', 1e3 / 8],
  Mbps: ['rate', 1e6 / 8],
  Gbps: ['rate', 1e9 / 8],
  'Mbit/s': ['rate', 1e6 / 8],
  'Gbit/s': ['rate', 1e9 / 8],
  'kB/s': ['rate', 1e3],
  'MB/s': ['rate', 1e6],
  'GB/s': ['rate', 1e9],
  V: ['voltage', 1],
  mV: ['voltage', 1e-3],
  kV: ['voltage', 1e3],
  mA: ['current', 1e-3],
  kA: ['current', 1e3],
  Ah: ['charge', 3600],
  mAh: ['charge', 3.6],
  Pa: ['pressure', 1],
  kPa: ['pressure', 1e3],
  MPa: ['pressure', 1e6],
  hPa: ['pressure', 100],
  bar: ['pressure', 1e5],
  mbar: ['pressure', 100],
  psi: ['pressure', 6894.757293168],
  mmHg: ['pressure', 133.322387415],
  'mm Hg': ['pressure', 133.322387415],
  N: ['force', 1],
  kN: ['force', 1e3],
  '%': ['pct', 1],
  pp: ['pp', 1],
  bp: ['pp', 0.01],
  bps_: ['pp', 0.01],
  x: ['times', 1],
  '×': ['times', 1],
};

// Names: matched ignoring case, singular or plural (the plural is made by the table's reader).
const NAMES: Table = {
  nanosecond: ['time', 1e-9],
  microsecond: ['time', 1e-6],
  millisecond: ['time', 1e-3],
  second: ['time', 1],
  sec: ['time', 1],
  minute: ['time', 60],
  min: ['time', 60],
  hour: ['time', 3600],
  hr: ['time', 3600],
  day: ['time', 86400],
  week: ['time', 604800],
  fortnight: ['time', 1209600],
  month: ['months', 1],
  year: ['months', 12],
  decade: ['months', 120],
  millimetre: ['length', 1e-3],
  millimeter: ['length', 1e-3],
  centimetre: ['length', 1e-2],
  centimeter: ['length', 1e-2],
  metre: ['length', 1],
  meter: ['length', 1],
  kilometre: ['length', 1e3],
  kilometer: ['length', 1e3],
  inch: ['length', 0.0254],
  foot: ['length', 0.3048],
  feet: ['length', 0.3048],
  yard: ['length', 0.9144],
  mile: ['length', 1609.344],
  'nautical mile': ['length', 1852],
  milligram: ['mass', 1e-6],
  gram: ['mass', 1e-3],
  kilogram: ['mass', 1],
  kilo: ['mass', 1],
  tonne: ['mass', 1e3],
  megatonne: ['mass', 1e9],
  gigatonne: ['mass', 1e12],
  'metric ton': ['mass', 1e3],
  ounce: ['mass', 0.028349523125],
  millilitre: ['volume', 1e-3],
  milliliter: ['volume', 1e-3],
  litre: ['volume', 1],
  hectolitre: ['volume', 100],
  hectoliter: ['volume', 100],
  liter: ['volume', 1],
  'cubic metre': ['volume', 1e3],
  'cubic meter': ['volume', 1e3],
  gallon: ['volume', 3.785411784],
  teaspoon: ['volume', 0.00492892159375],
  tablespoon: ['volume', 0.01478676478125],
  cup: ['volume', 0.2365882365],
  'square metre': ['area', 1],
  'square meter': ['area', 1],
  'square kilometre': ['area', 1e6],
  'square kilometer': ['area', 1e6],
  'square foot': ['area', 0.09290304],
  'square feet': ['area', 0.09290304],
  'sq ft': ['area', 0.09290304],
  'sq m': ['area', 1],
  hectare: ['area', 1e4],
  acre: ['area', 4046.8564224],
  'degree celsius': ['temp', 1],
  'degrees celsius': ['temp', 1],
  'degree fahrenheit': ['temp', 5 / 9, -32 * (5 / 9)],
  'degrees fahrenheit': ['temp', 5 / 9, -32 * (5 / 9)],
  kelvin: ['temp', 1, -273.15],
  'kilometres per hour': ['speed', 1 / 3.6],
  'kilometers per hour': ['speed', 1 / 3.6],
  'miles per hour': ['speed', 0.44704],
  'metres per second': ['speed', 1],
  'meters per second': ['speed', 1],
  knot: ['speed', 1852 / 3600],
  watt: ['power', 1],
  kilowatt: ['power', 1e3],
  megawatt: ['power', 1e6],
  gigawatt: ['power', 1e9],
  horsepower: ['power', 745.6998715822702],
  joule: ['energy', 1],
  kilojoule: ['energy', 1e3],
  megajoule: ['energy', 1e6],
  'kilowatt-hour': ['energy', 3.6e6],
  'kilowatt hour': ['energy', 3.6e6],
  'megawatt-hour': ['energy', 3.6e9],
  'megawatt hour': ['energy', 3.6e9],
  calorie: ['energy', 4184],
  kilocalorie: ['energy', 4184],
  volt: ['voltage', 1],
  kilovolt: ['voltage', 1e3],
  ampere: ['current', 1],
  amp: ['current', 1],
  pascal: ['pressure', 1],
  kilopascal: ['pressure', 1e3],
  newton: ['force', 1],
  kilonewton: ['force', 1e3],
  hertz: ['frequency', 1],
  kilohertz: ['frequency', 1e3],
  megahertz: ['frequency', 1e6],
  gigahertz: ['frequency', 1e9],
  byte: ['data', 1],
  kilobyte: ['data', 1e3],
  megabyte: ['data', 1e6],
  gigabyte: ['data', 1e9],
  terabyte: ['data', 1e12],
  petabyte: ['data', 1e15],
  kibibyte: ['data', 1024],
  mebibyte: ['data', 1024 ** 2],
  gibibyte: ['data', 1024 ** 3],
  tebibyte: ['data', 1024 ** 4],
  kilobit: ['data', 1e3 / 8],
  megabit: ['data', 1e6 / 8],
  gigabit: ['data', 1e9 / 8],
  percent: ['pct', 1],
  'per cent': ['pct', 1],
  pct: ['pct', 1],
  'percentage point': ['pp', 1],
  'basis point': ['pp', 0.01],
  times: ['times', 1],
  fold: ['times', 1],
};

const symbols = new Map(Object.entries(SYMBOLS).map(([k, v]) => [k.replace(/_$/, ''), v]));
const names = new Map(Object.entries(NAMES));

/** Lower-case unit symbols that are not words: compared as written when the table does not know them. */
export const LOWER_SYMBOLS = 'ppm ppb rpm dpi ppi fps bpm lx lm mol cd sr kt cc'.split(' ');

/** The measure a unit as written names, if the table knows it. */
export function measureOf(unit: string): Measure | undefined {
  const written = unit.trim().replace(/\s+/g, ' ');
  const symbol = symbols.get(written) ?? symbols.get(written.replace(/^°\s+/, '°'));
  const entry = symbol ?? names.get(singular(written.toLowerCase()));
  if (!entry) return undefined;
  const [dim, factor, offset] = entry;
  return offset === undefined ? { dim, factor } : { dim, factor, offset };
}

/** "miles per hour" → "mile per hour" is not wanted: only the last word of a name is made singular. */
function singular(name: string): string {
  if (names.has(name)) return name;
  if (name.endsWith('ies')) return `${name.slice(0, -3)}y`;
  if (name.endsWith('es') && names.has(name.slice(0, -2))) return name.slice(0, -2);
  if (name.endsWith('s')) return name.slice(0, -1);
  return name;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const longestFirst = (a: string, b: string) => b.length - a.length;

/** A pattern for every symbol (as written) and name (any case, singular or plural) the table knows. */
export const MEASURE_SYMBOLS = [...symbols.keys()]
  .filter((s) => s.length > 1 && !['in', '°C', '°F'].includes(s))
  .sort(longestFirst)
  .map(escapeRe)
  .join('|');
export const MEASURE_NAMES = [...names.keys()]
  .filter((n) => !['percent', 'per cent', 'pct', 'percentage point'].includes(n))
  .sort(longestFirst)
  .map((n) => `${escapeRe(n).replace(/ /g, '\\s+')}(?:s|es)?`)
  .join('|');
