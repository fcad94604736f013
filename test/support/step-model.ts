import { type RecordedRequest, sse, startFakeServer } from './fake-server.js';
import { chatSse } from './sse-builders.js';

// An OpenAI-compatible model on loopback that answers each research step (recognised from its system
// prompt) from a script, and keeps every prompt. The real SDK client talks to it through OPENAI_BASE_URL;
// the process's provider and search settings are cleared meanwhile and restored by close().

export type StepName = 'plan' | 'extract' | 'write' | 'verify';

const STEP_OF: [string, StepName][] = [
  ['You plan research', 'plan'],
  ['You extract facts', 'extract'],
  ['You check whether claims', 'verify'],
];

export async function startStepModel(answer: (step: StepName, prompt: string, index: number) => string) {
  const saved = { ...process.env };
  const prompts: { step: StepName; system: string; prompt: string }[] = [];
  const server = await startFakeServer([], (req: RecordedRequest) => {
    const body = req.body as any;
    const system: string = body.messages[0]?.content ?? '';
    const step = STEP_OF.find(([marker]) => system.includes(marker))?.[1] ?? 'write';
    const prompt = body.messages
      .filter((m: any) => m.role === 'user')
      .map((m: any) => m.content)
      .join('\n');
    const index = prompts.filter((p) => p.step === step).length;
    prompts.push({ step, system, prompt });
    return sse(chatSse({ text: answer(step, prompt, index) }, body.model));
  });
  for (const k of Object.keys(process.env))
    if (/^(ANTHROPIC_|OPENAI_|AGENT_|BRAVE_|TAVILY_|SEARXNG_)/.test(k)) delete process.env[k];
  process.env.OPENAI_BASE_URL = `${server.url}/v1`;
  return {
    url: server.url,
    prompts,
    of: (step: StepName) => prompts.filter((p) => p.step === step),
    close: async () => {
      process.env = { ...saved };
      await server.close();
    },
  };
}
