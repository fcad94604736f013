// Builds provider streams in each API's documented wire format, for scripted end-to-end runs.
// (The recorded fixtures in test/fixtures/ pin the formats; these builders vary the content.)

export interface ScriptedReply {
  text?: string;
  calls?: { id: string; name: string; args: unknown }[];
  usage?: { input: number; output: number; cached?: number };
  finish?: 'stop' | 'length';
}

const frame = (data: unknown, event?: string) =>
  `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;

export function chatSse(r: ScriptedReply, model = 'scripted-model'): string {
  const chunk = (delta: unknown, finish: string | null = null) =>
    frame({
      id: 'chatcmpl-x',
      object: 'chat.completion.chunk',
      created: 1,
      model,
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  let out = chunk({ role: 'assistant', content: '' });
  if (r.text) {
    // Split the text so that streaming is really exercised.
    for (const piece of r.text.match(/.{1,12}/gs) ?? []) out += chunk({ content: piece });
  }
  (r.calls ?? []).forEach((c, index) => {
    const args = JSON.stringify(c.args);
    out += chunk({
      tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }],
    });
    out += chunk({ tool_calls: [{ index, function: { arguments: args.slice(0, 5) } }] });
    out += chunk({ tool_calls: [{ index, function: { arguments: args.slice(5) } }] });
  });
  out += chunk({}, r.finish ?? (r.calls?.length ? 'tool_calls' : 'stop'));
  const u = r.usage ?? { input: 100, output: 20 };
  out += frame({
    id: 'chatcmpl-x',
    object: 'chat.completion.chunk',
    created: 1,
    model,
    choices: [],
    usage: {
      prompt_tokens: u.input,
      completion_tokens: u.output,
      total_tokens: u.input + u.output,
      prompt_tokens_details: { cached_tokens: u.cached ?? 0 },
    },
  });
  return `${out}data: [DONE]\n\n`;
}

export function anthropicSse(r: ScriptedReply, model = 'claude-haiku-5-5'): string {
  const u = r.usage ?? { input: 100, output: 20 };
  let out = frame(
    {
      type: 'message_start',
      message: {
        id: 'msg_x',
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: u.input,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: u.cached ?? 0,
          output_tokens: 1,
        },
      },
    },
    'message_start',
  );
  let index = 0;
  if (r.text) {
    out += frame(
      { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
      'content_block_start',
    );
    for (const piece of r.text.match(/.{1,12}/gs) ?? []) {
      out += frame(
        { type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } },
        'content_block_delta',
      );
    }
    out += frame({ type: 'content_block_stop', index }, 'content_block_stop');
    index++;
  }
  for (const c of r.calls ?? []) {
    out += frame(
      {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: c.id, name: c.name, input: {} },
      },
      'content_block_start',
    );
    out += frame(
      {
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(c.args) },
      },
      'content_block_delta',
    );
    out += frame({ type: 'content_block_stop', index }, 'content_block_stop');
    index++;
  }
  const stop = r.finish === 'length' ? 'max_tokens' : r.calls?.length ? 'tool_use' : 'end_turn';
  out += frame(
    {
      type: 'message_delta',
      delta: { stop_reason: stop, stop_sequence: null },
      usage: { output_tokens: u.output },
    },
    'message_delta',
  );
  out += frame({ type: 'message_stop' }, 'message_stop');
  return out;
}
