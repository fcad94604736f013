// Where a process's CPU went, from V8 CPU profiles (node --cpu-prof): self time summed by kind, averaged
// over several profiles. The kinds say whose the time is: Node's fetch (undici, loaded by the SDKs' first
// request), reading files, agent's own code, V8 deserializing the code cache, Node loading its modules.
import { readFileSync } from 'node:fs';

const FILE_CALLS =
  /^(readFileUtf8|readFileSync|read|readSync|open|close|fstat|lstat|stat|internalModuleStat|realpathSync|internalModuleReadJSON|readdir|readdirSync)$/;

function kindOf(frame, inUndici) {
  const { functionName: fn, url } = frame;
  if (fn === '(garbage collector)') return 'garbage collection';
  if (fn === '(program)' || fn === '(idle)') return 'V8 outside JavaScript (start, compile)';
  if (inUndici) return "Node's fetch (undici)";
  if (fn === 'Script' && url === 'node:vm') return 'V8 code cache (deserialize)';
  if (FILE_CALLS.test(fn) || url === 'node:fs') return 'reading files';
  if (url.includes('/dist/bundle/'))
    return `agent: ${url.replace(/.*\//, '').replace(/^chunk-.*/, 'shared chunks')}`;
  if (url.includes('/node_modules/'))
    return `package: ${url.replace(/.*\/node_modules\//, '').split('/')[0]}`;
  if (url.startsWith('node:internal/modules') || /^node:(path|url|internal\/url)$/.test(url))
    return "Node's module loader";
  if (url.startsWith('node:internal/bootstrap') || fn === 'compileForInternalLoader')
    return "Node's own modules";
  if (url.startsWith('node:internal/process') || url.startsWith('node:internal/main'))
    return "Node's start-up";
  if (url.startsWith('node:')) return "Node's own code (streams, events, buffers, …)";
  if (!url) return fn === 'dlopen' ? 'native: dlopen (the SQLite addon)' : 'native: other calls';
  return 'other';
}

/** Milliseconds of self time by kind, averaged over the profiles in `files`. */
export function summarize(files) {
  const total = new Map();
  for (const file of files) {
    const profile = JSON.parse(readFileSync(file, 'utf8'));
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const parent = new Map();
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    const undici = new Map();
    const inUndici = (id) => {
      if (id === undefined) return false;
      if (!undici.has(id)) {
        const { url } = byId.get(id).callFrame;
        undici.set(
          id,
          url.includes('deps/undici') || url.includes('exposed-window') || inUndici(parent.get(id)),
        );
      }
      return undici.get(id);
    };
    const self = new Map();
    profile.samples.forEach((id, i) => {
      self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
    });
    for (const [id, us] of self) {
      const kind = kindOf(byId.get(id).callFrame, inUndici(id));
      total.set(kind, (total.get(kind) ?? 0) + us / 1000 / files.length);
    }
  }
  return [...total].sort((a, b) => b[1] - a[1]);
}

/** The summary as lines: kinds of at least `min` ms, then the total. */
export function summaryLines(files, min = 0.5) {
  const rows = summarize(files);
  const sum = rows.reduce((s, [, ms]) => s + ms, 0);
  return [
    ...rows.filter(([, ms]) => ms >= min).map(([kind, ms]) => `${ms.toFixed(1).padStart(8)} ms  ${kind}`),
    `${sum.toFixed(1).padStart(8)} ms  in all (profiling adds to every figure)`,
  ];
}
