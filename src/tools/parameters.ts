// The JSON Schemas the built-in tools send to providers: what jsonSchemaOf() makes of the zod schemas in
// inputs.ts, written out so that a chat's first request does not load zod (test/tools/parameters.test.ts
// fails when the two differ, byte for byte).

export const calculatorParameters = {
  type: 'object',
  properties: {
    expression: {
      type: 'string',
      minLength: 1,
      description: 'For example "(1234 * 5678) / 2" or "2^-1"',
    },
  },
  required: ['expression'],
  additionalProperties: false,
};

export const readUrlParameters = {
  type: 'object',
  properties: { url: { type: 'string', minLength: 1, description: 'An absolute http(s) URL' } },
  required: ['url'],
  additionalProperties: false,
};

export const webSearchParameters = {
  type: 'object',
  properties: {
    query: {
      type: 'string',
      minLength: 1,
      description: 'What to search for, as you would type it into a search engine',
    },
    count: {
      description: 'How many results, 1 to 10 (default 5)',
      type: 'integer',
      minimum: 1,
      maximum: 10,
    },
  },
  required: ['query'],
  additionalProperties: false,
};

export const saveNoteParameters = {
  type: 'object',
  properties: {
    content: { type: 'string', description: 'The note itself, self-contained' },
    title: { description: 'A short title', type: 'string' },
    tags: { description: 'A few short tags', maxItems: 10, type: 'array', items: { type: 'string' } },
  },
  required: ['content'],
  additionalProperties: false,
};

export const searchNotesParameters = {
  type: 'object',
  properties: {
    query: { description: 'Words to search for; omit to list the newest notes', type: 'string' },
    limit: { type: 'integer', minimum: 1, maximum: 20 },
  },
  additionalProperties: false,
};
