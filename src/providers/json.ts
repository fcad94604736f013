export type ParsedArguments =
  | { value: Record<string, unknown>; error?: undefined }
  | { value?: undefined; error: string };

/**
 * Tool arguments must be one complete JSON object. Anything else (a stream cut off mid-call, a bare
 * string, an array) is reported, never guessed at.
 */
export function parseToolArguments(text: string): ParsedArguments {
  const trimmed = text.trim();
  if (trimmed === '') return { value: {} }; // a call with no arguments streams nothing
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch (error) {
    return { error: `the arguments are not complete JSON (${(error as Error).message})` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { error: 'the arguments must be a JSON object' };
  }
  return { value: value as Record<string, unknown> };
}
