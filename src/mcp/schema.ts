// A server's input schema, made into what every provider accepts as tool parameters: an object at the
// top with `properties`, no `$schema`/`$id`, no combinators at the top (Anthropic and OpenAI both
// refuse `anyOf`/`oneOf`/`allOf` there), and no `$ref` that points nowhere. Arguments are still
// validated against the server's own schema (see validator.ts), so loosening here never lets a
// wrong call through.

type Schema = Record<string, unknown>;

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Top-level keys that identify or combine rather than describe the arguments object. */
const TOP_LEVEL_DROPPED = [
  '$schema',
  '$id',
  '$anchor',
  '$dynamicAnchor',
  '$vocabulary',
  'anyOf',
  'oneOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  'enum',
  'const',
];

/** Follows a local JSON pointer (`#`, `#/$defs/Item`); undefined for anything else. */
export function resolveLocalRef(root: Schema, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
    if (node === undefined) return undefined;
  }
  return node;
}

/** A copy in which every `$ref` that does not resolve inside `root` accepts anything instead. */
export function withoutDanglingRefs(root: Schema): Schema {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (!isObject(node)) return node;
    const out: Schema = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && (typeof value !== 'string' || resolveLocalRef(root, value) === undefined))
        continue;
      out[key] = walk(value);
    }
    return out;
  };
  return walk(root) as Schema;
}

/**
 * The parameters sent to providers for one server tool. Properties that only appear inside a
 * top-level combinator are lifted to the top (optional, since no one branch is required), so the
 * model still sees every argument it may give.
 */
export function portableSchema(inputSchema: unknown): Schema {
  const original = isObject(inputSchema) ? withoutDanglingRefs(inputSchema) : {};
  let top: Schema = { ...original };
  // A top-level `$ref` names the real arguments object: inline it.
  if (typeof top.$ref === 'string') {
    const target = resolveLocalRef(original, top.$ref);
    const { $ref: _ref, ...rest } = top;
    top = isObject(target) ? { ...rest, ...target } : rest;
  }

  const properties: Schema = isObject(top.properties) ? { ...top.properties } : {};
  const required = new Set(
    Array.isArray(top.required) ? top.required.filter((r) => typeof r === 'string') : [],
  );
  const lift = (branches: unknown, allRequired: boolean) => {
    if (!Array.isArray(branches)) return;
    for (const b of branches) {
      const branch = isObject(b) && typeof b.$ref === 'string' ? resolveLocalRef(original, b.$ref) : b;
      if (!isObject(branch) || !isObject(branch.properties)) continue;
      for (const [name, sub] of Object.entries(branch.properties))
        if (!(name in properties)) properties[name] = sub;
      if (allRequired && Array.isArray(branch.required))
        for (const r of branch.required) if (typeof r === 'string') required.add(r);
    }
  };
  lift(top.allOf, true);
  lift(top.anyOf, false);
  lift(top.oneOf, false);

  const out: Schema = {};
  for (const [key, value] of Object.entries(top)) if (!TOP_LEVEL_DROPPED.includes(key)) out[key] = value;
  out.type = 'object';
  out.properties = properties;
  if (required.size) out.required = [...required];
  else delete out.required;
  // A `$ref` into a part dropped above would now point nowhere.
  return withoutDanglingRefs(out);
}
