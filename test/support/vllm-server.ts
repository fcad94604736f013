import { type RecordedRequest, sse, startFakeServer } from './fake-server.js';
import { chatSse } from './sse-builders.js';

// A loopback vLLM: GET /v1/models lists the model with its max_model_len (unless `unlisted`), and a chat
// request whose prompt and max_tokens together exceed it is refused with HTTP 400 and vLLM's own error
// body. Tokens are counted as four characters each. `answer` gives the reply to any request it takes.

export const vllmRefusal = (max: number, prompt: number, completion: number) => ({
  object: 'error',
  message: `This model's maximum context length is ${max} tokens. However, you requested ${prompt + completion} tokens (${prompt} in the messages, ${completion} in the completion). Please reduce the length of the messages or completion.`,
  type: 'BadRequestError',
  param: null,
  code: 400,
});

export async function startVllmServer(o: {
  model: string;
  maxModelLen: number;
  /** /v1/models says no max_model_len: the context is found only by a refusal. */
  unlisted?: boolean;
  answer: (body: any) => string;
}) {
  const refused: RecordedRequest[] = [];
  const server = await startFakeServer([], (req) => {
    if (req.method === 'GET' && req.url === '/v1/models')
      return {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          object: 'list',
          data: [
            {
              id: o.model,
              object: 'model',
              created: 1,
              owned_by: 'vllm',
              root: o.model,
              ...(o.unlisted ? {} : { max_model_len: o.maxModelLen }),
            },
          ],
        }),
      };
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions')
      return { status: 404, headers: { 'content-type': 'application/json' }, body: '{"detail":"Not Found"}' };
    const body = req.body as any;
    const prompt = Math.ceil(JSON.stringify(body.messages).length / 4);
    // vLLM fills the rest of the context when max_tokens is not given.
    const completion = body.max_tokens ?? Math.max(1, o.maxModelLen - prompt);
    if (prompt + completion > o.maxModelLen) {
      refused.push(req);
      return {
        status: 400,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(vllmRefusal(o.maxModelLen, prompt, completion)),
      };
    }
    return sse(chatSse({ text: o.answer(body), usage: { input: prompt, output: 20 } }, o.model));
  });
  return { ...server, refused };
}
