import { z } from 'zod';

// The schema of the `mcpServers` file (see config.ts), loaded only when there is such a file.

const strings = z.record(z.string(), z.string());

// Loose objects: other clients' files carry keys of their own (`autoApprove`, `timeout`, …) that must
// not make the file unusable here.
const serverSchema = z
  .looseObject({
    type: z.string().optional(),
    command: z.string().optional(),
    args: z.array(z.string()).optional(),
    env: strings.optional(),
    cwd: z.string().optional(),
    url: z.string().optional(),
    headers: strings.optional(),
    disabled: z.boolean().optional(),
  })
  .superRefine((s, ctx) => {
    const fail = (message: string) => ctx.addIssue({ code: 'custom', message });
    if (s.type === 'sse') return fail('the old SSE transport is not supported; give a Streamable HTTP "url"');
    if (s.type !== undefined && !['stdio', 'http', 'streamable-http'].includes(s.type))
      return fail(`"type" must be "stdio" or "http", not "${s.type}"`);
    if (s.command !== undefined && s.url !== undefined) return fail('has both "command" and "url"; give one');
    if (!s.command?.trim() && !s.url)
      return fail('needs "command" (a program to start) or "url" (a Streamable HTTP endpoint)');
    if (s.url !== undefined) {
      if (s.type === 'stdio') return fail('"type" is "stdio" but the server has a "url"');
      const url = URL.canParse(s.url) ? new URL(s.url) : undefined;
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
        return fail(`"url" must be an http or https URL, not "${s.url}"`);
    } else if (s.type === 'http' || s.type === 'streamable-http') {
      return fail(`"type" is "${s.type}" but the server has no "url"`);
    }
  });

export const fileSchema = z.looseObject({
  mcpServers: z.record(z.string(), serverSchema, { error: 'must be an object of named servers' }),
});

export function describeIssues(issues: z.core.$ZodIssue[]): string {
  return issues
    .map((i) => (i.path.length ? `${i.path.map(String).join('.')}: ${i.message}` : i.message))
    .join('; ');
}
