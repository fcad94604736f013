import { describe, expect, it } from 'vitest';
import { formatToolResult, MAX_RESULT_CHARS } from '../../src/mcp/content.js';
import { ToolError } from '../../src/tools/tool.js';

const base64 = (bytes: number) => Buffer.alloc(bytes, 7).toString('base64');

describe('tool results for the model', () => {
  it('joins text and summarises everything else in one line each', () => {
    const text = formatToolResult({
      content: [
        { type: 'text', text: 'Here is the chart.' },
        { type: 'image', data: base64(12 * 1024), mimeType: 'image/png' },
        { type: 'audio', data: base64(300), mimeType: 'audio/wav' },
        {
          type: 'resource_link',
          uri: 'file:///r/report.pdf',
          name: 'report.pdf',
          mimeType: 'application/pdf',
        },
        {
          type: 'resource',
          resource: { uri: 'file:///r/data.bin', mimeType: 'application/octet-stream', blob: base64(2048) },
        },
        { type: 'resource', resource: { uri: 'file:///r/readme.txt', text: 'Read me first.' } },
      ],
    });
    expect(text).toBe(
      [
        'Here is the chart.',
        '[image: image/png, 12 KB]',
        '[audio: audio/wav, 300 bytes]',
        '[resource link: report.pdf file:///r/report.pdf (application/pdf)]',
        '[resource: file:///r/data.bin, application/octet-stream, 2 KB]',
        '[resource: file:///r/readme.txt]',
        'Read me first.',
      ].join('\n'),
    );
  });

  it('shows structured content as JSON when there is no text', () => {
    expect(formatToolResult({ content: [], structuredContent: { temperature: 21.5, unit: 'C' } })).toBe(
      '{\n  "temperature": 21.5,\n  "unit": "C"\n}',
    );
    expect(
      formatToolResult({
        content: [{ type: 'text', text: '21.5 C' }],
        structuredContent: { temperature: 21.5 },
      }),
    ).toBe('21.5 C');
    expect(formatToolResult({ content: [] })).toBe('(the tool returned no content)');
  });

  it('turns isError results into errors the model reads', () => {
    expect(() =>
      formatToolResult({ content: [{ type: 'text', text: 'No such repository.' }], isError: true }),
    ).toThrow(new ToolError('No such repository.'));
    expect(() => formatToolResult({ content: [], isError: true })).toThrow(
      /reported an error without saying why/,
    );
  });

  it('cuts a huge result and says so', () => {
    const text = formatToolResult({ content: [{ type: 'text', text: 'x'.repeat(MAX_RESULT_CHARS + 500) }] });
    expect(text.length).toBeLessThan(MAX_RESULT_CHARS + 200);
    expect(text).toMatch(/\[… cut: the result was 40,500 characters; the first 40,000 are shown\]$/);
  });

  it('never sends binary data in structured content as text', () => {
    const image = base64(30_000);
    const text = formatToolResult({
      // As the filesystem server sends an image: the image block, and the same again as structured content.
      content: [{ type: 'image', data: image, mimeType: 'image/png' }],
      structuredContent: {
        content: [{ type: 'image', data: image, mimeType: 'image/png' }],
        attachment: { uri: 'file:///r/a.zip', mimeType: 'application/zip', blob: base64(2048) },
        preview: `data:image/jpeg;base64,${base64(600)}`,
        raw: base64(1500),
        caption: 'A chart',
        id: 'abc123',
      },
    });
    expect(text).toBe(
      [
        '[image: image/png, 29 KB]',
        JSON.stringify(
          {
            content: ['[image: image/png, 29 KB]'],
            attachment: '[resource: file:///r/a.zip, application/zip, 2 KB]',
            preview: '[data: image/jpeg, 600 bytes]',
            raw: '[binary data, 1 KB]',
            caption: 'A chart',
            id: 'abc123',
          },
          null,
          2,
        ),
      ].join('\n'),
    );
  });
});
