// JSON read from a model's reply as small models write it: inside a ``` fence or after a sentence of
// prose, with trailing commas, single-quoted strings, unquoted keys, Python's True/False/None, or cut off
// at the output limit (the open strings and brackets are closed). What cannot be read is undefined: the
// caller asks again or falls back, never guesses further.

/**
 * The first JSON object or array the reply holds that `accept` takes (any, by default), read as above;
 * undefined when there is none. `accept` passes over a bracket in the prose before the JSON ("[1]").
 */
export function readJsonReply(reply: string, accept: (value: unknown) => boolean = () => true): unknown {
  const fenced = [...reply.matchAll(/```[a-zA-Z]*\s*\n?([\s\S]*?)(?:```|$)/g)].map((m) => m[1]!);
  for (const text of [...fenced, reply]) {
    let from = 0;
    for (let tries = 0; tries < 8; tries++) {
      const start = text.slice(from).search(/[{[]/);
      if (start < 0) break;
      const at = from + start;
      const value = readAt(text, at);
      if (value !== undefined && accept(value)) return value;
      from = at + 1;
    }
  }
  return undefined;
}

function readAt(text: string, start: number): unknown {
  const { repaired, end } = scan(text, start);
  for (const candidate of [text.slice(start, end), repaired]) {
    try {
      const value: unknown = JSON.parse(candidate);
      if (value !== null && typeof value === 'object') return value;
    } catch {}
  }
  return undefined;
}

const closes = (after: string) => /^\s*(?:[,:\]}]|$)/.test(after);
const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' };

/** A quoted string from `at`: its value, where it ends, and whether its closing quote was there. */
function readString(text: string, at: number): { value: string; end: number } {
  const quote = text[at]!;
  let value = '';
  let i = at + 1;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\\' && i + 1 < text.length) {
      const next = text[i + 1]!;
      if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
        value += String.fromCharCode(Number.parseInt(text.slice(i + 2, i + 6), 16));
        i += 6;
      } else {
        value += ESCAPES[next] ?? next;
        i += 2;
      }
      continue;
    }
    // A quote inside the text ("it's", a "quoted" word) does not end it: the closing one is followed by
    // what may follow a string.
    if (c === quote && closes(text.slice(i + 1, i + 40))) return { value, end: i + 1 };
    value += c;
    i++;
  }
  return { value, end: i };
}

/**
 * From an opening bracket to the one that closes it: the text rewritten as strict JSON (strings
 * double-quoted, bare keys quoted, trailing commas dropped, what is still open closed), and where it ended.
 */
function scan(text: string, start: number): { repaired: string; end: number } {
  const open: string[] = [];
  let out = '';
  let i = start;
  const trimComma = () => {
    out = out.replace(/,\s*$/, '');
  };
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"' || c === "'") {
      const s = readString(text, i);
      out += JSON.stringify(s.value);
      i = s.end;
    } else if (c === '{' || c === '[') {
      open.push(c === '{' ? '}' : ']');
      out += c;
      i++;
    } else if (c === '}' || c === ']') {
      trimComma();
      if (open.at(-1) === c) open.pop();
      out += c;
      i++;
      if (open.length === 0) return { repaired: out, end: i };
    } else if (/[A-Za-z_$]/.test(c)) {
      const word = /^[A-Za-z_$][\w$-]*/.exec(text.slice(i))![0];
      const literal = {
        true: 'true',
        false: 'false',
        null: 'null',
        True: 'true',
        False: 'false',
        None: 'null',
      }[word];
      out += /^\s*:/.test(text.slice(i + word.length)) ? JSON.stringify(word) : (literal ?? word);
      i += word.length;
    } else {
      out += c;
      i++;
    }
  }
  // Cut off: a dangling key or comma goes, and every bracket still open is closed.
  out = out.replace(/,?\s*"[^"]*"\s*:\s*$/, '').replace(/:\s*$/, ': null');
  while (open.length) {
    trimComma();
    out += open.pop();
  }
  return { repaired: out, end: i };
}
