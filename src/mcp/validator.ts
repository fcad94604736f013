import { Ajv, type ErrorObject, type Options } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ArgumentCheck } from '../tools/tool.js';
import { withoutDanglingRefs } from './schema.js';

const OPTIONS: Options = {
  allErrors: true, // the model fixes every mistake in one go
  verbose: true, // errors carry the value, so a type error can say what was given
  strict: false, // servers use keywords and formats of their own; unknown ones are annotations
  validateFormats: false, // `format` is an annotation in 2020-12, and the server checks its own
  logger: false,
};

const MAX_ERRORS = 6;

type Draft = '07' | '2019' | '2020';

/** The draft a schema declares; MCP's default (and the default here) is 2020-12. */
function draftOf(schema: Record<string, unknown>): Draft {
  const declared = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (/draft-0[4-7]/.test(declared)) return '07';
  if (declared.includes('2019-09')) return '2019';
  return '2020';
}

const where = (instancePath: string) =>
  instancePath
    ? `"${instancePath
        .slice(1)
        .split('/')
        .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
        .join('.')}"`
    : 'arguments';

const typeName = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

function describeError(e: ErrorObject): string {
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return `${where(`${e.instancePath}/${params.missingProperty}`)}: is required`;
    case 'additionalProperties':
      return `${where(`${e.instancePath}/${params.additionalProperty}`)}: unknown property`;
    case 'type':
      return `${where(e.instancePath)}: ${e.message}, not ${typeName(e.data)}`;
    case 'enum':
      return `${where(e.instancePath)}: must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `${where(e.instancePath)}: must be ${JSON.stringify(params.allowedValue)}`;
    default:
      return `${where(e.instancePath)}: ${e.message}`;
  }
}

/** Ajv's errors as one line in the style of the built-in tools' zod errors. */
export function describeErrors(errors: readonly ErrorObject[]): string {
  const lines = [...new Set(errors.map(describeError))];
  const shown = lines.slice(0, MAX_ERRORS).join('; ');
  return lines.length > MAX_ERRORS ? `${shown}; and ${lines.length - MAX_ERRORS} more` : shown;
}

/** Compiles server schemas; one Ajv per draft, made when first needed. */
export class SchemaCompiler {
  private readonly instances = new Map<Draft, Ajv>();

  private ajv(draft: Draft): Ajv {
    let ajv = this.instances.get(draft);
    if (!ajv) {
      ajv =
        draft === '07' ? new Ajv(OPTIONS) : draft === '2019' ? new Ajv2019(OPTIONS) : new Ajv2020(OPTIONS);
      this.instances.set(draft, ajv);
    }
    return ajv;
  }

  /**
   * A check of tool arguments against the server's own schema. Throws when the schema itself is
   * broken: a provider would refuse it too, so such a tool is better left out.
   */
  compile(inputSchema: unknown): (args: unknown) => ArgumentCheck {
    const root =
      typeof inputSchema === 'object' && inputSchema !== null ? (inputSchema as Record<string, unknown>) : {};
    const draft = draftOf(root);
    // The draft is chosen above; a top-level `$id` would clash in Ajv's cache when two tools share one.
    const { $schema: _s, $id: _i, ...schema } = withoutDanglingRefs(root);
    const check = this.ajv(draft).compile(schema);
    return (args) =>
      check(args) ? { ok: true, value: args } : { ok: false, error: describeErrors(check.errors ?? []) };
  }
}
