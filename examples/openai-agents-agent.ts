/**
 * An OpenAI Agents SDK agent with Engram as its long-term memory: one run
 * tells it something, a later one — sharing nothing but the memory — asks.
 *
 *   npx tsx openai-agents-agent.ts (in examples/; ENGRAM_URL and ENGRAM_API_KEY to use your server)
 *
 * The model is a scripted `Model`, so this runs with no network and no key:
 * leave `model` out (the SDK's default, with OPENAI_API_KEY set) or name one
 * (`model: 'gpt-4.1'`) and it decides the tool calls itself.
 */
import {
  Agent,
  Runner,
  Usage,
  type AgentInputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
} from '@openai/agents';
import { engramTools } from '@engram/client/openai-agents';
import { openMemory } from './local-server.js';

/** What a real model would do here: remember what it is told, recall what it is asked. */
class ScriptedModel implements Model {
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const input: AgentInputItem[] =
      typeof request.input === 'string'
        ? [{ role: 'user', content: request.input }]
        : request.input;
    return { usage: new Usage(), output: [this.next(input)] };
  }

  private next(input: AgentInputItem[]): ModelResponse['output'][number] {
    const last = input.at(-1);
    if (last?.type === 'function_call_result') {
      const output =
        typeof last.output === 'string'
          ? last.output
          : 'text' in last.output
            ? last.output.text
            : '';
      if (last.name === 'remember') return message('Noted.');
      const { results } = JSON.parse(String(output)) as { results: { fact: string }[] };
      return message(results[0] ? `From memory: ${results[0].fact}.` : 'I do not know.');
    }
    const asked = last && 'role' in last && typeof last.content === 'string' ? last.content : '';
    return asked.endsWith('?')
      ? call('recall', { question: asked })
      : call('remember', {
          entity: 'Project Falcon',
          type: 'project',
          facts: ['Project Falcon ships on the first of June'],
        });
  }

  // eslint-disable-next-line require-yield -- this model does not stream
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('not streamed');
  }
}

const call = (name: string, args: unknown) => ({
  type: 'function_call' as const,
  callId: `call-${name}`,
  name,
  arguments: JSON.stringify(args),
  status: 'completed' as const,
});
const message = (text: string) => ({
  type: 'message' as const,
  role: 'assistant' as const,
  status: 'completed' as const,
  content: [{ type: 'output_text' as const, text }],
});

const memory = await openMemory();
try {
  console.log(`Engram: ${memory.where}`);
  const agent = new Agent({
    name: 'Assistant',
    instructions:
      'You have a long-term memory: remember what you are told, recall before answering.',
    model: new ScriptedModel(),
    // `abstain: false`: answer the best match even when weak (this demo memory holds one fact).
    tools: engramTools(memory.engram, { abstain: false }),
  });
  // No traces are sent anywhere (they would go to OpenAI).
  const runner = new Runner({ tracingDisabled: true });

  const told = await runner.run(agent, 'Project Falcon ships on the first of June.');
  console.log(`> ${told.finalOutput}`);
  const later = await runner.run(agent, 'When does Project Falcon ship?');
  console.log(`> ${later.finalOutput}`);
  if (!String(later.finalOutput).includes('June')) {
    throw new Error('the agent did not recall what it was told');
  }
} finally {
  await memory.close();
}
