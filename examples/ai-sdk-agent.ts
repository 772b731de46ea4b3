/**
 * A Vercel AI SDK agent with Engram as its long-term memory: one conversation
 * tells it something, a later one — sharing nothing but the memory — asks.
 *
 *   npx tsx ai-sdk-agent.ts        (in examples/; ENGRAM_URL and ENGRAM_API_KEY to use your server)
 *
 * The model is the AI SDK's mock, scripted below, so this runs with no
 * network and no key: put a real one in its place (`openai('gpt-4.1')` from
 * `@ai-sdk/openai`, …) and it decides the tool calls itself.
 */
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { engramTools } from '@engram/client/ai-sdk';
import { openMemory } from './local-server.js';

type Turn = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;
const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 0, text: 0, reasoning: undefined },
};
const callTool = (toolName: string, input: unknown): Turn => ({
  content: [
    { type: 'tool-call', toolCallId: `call-${toolName}`, toolName, input: JSON.stringify(input) },
  ],
  finishReason: { unified: 'tool-calls', raw: undefined },
  usage,
  warnings: [],
});
const say = (text: string): Turn => ({
  content: [{ type: 'text', text }],
  finishReason: { unified: 'stop', raw: undefined },
  usage,
  warnings: [],
});

/** What a real model would do here: remember what it is told, recall what it is asked. */
const model = new MockLanguageModelV3({
  doGenerate: async ({ prompt }) => {
    const user = prompt.findLast((message) => message.role === 'user');
    const asked =
      user?.content.map((part) => (part.type === 'text' ? part.text : '')).join('') ?? '';
    const last = prompt.at(-1);
    const result = last?.role === 'tool' ? last.content[0] : undefined;
    if (result?.type !== 'tool-result') {
      return asked.endsWith('?')
        ? callTool('recall', { question: asked })
        : callTool('remember', {
            entity: 'Sam',
            type: 'person',
            facts: ['Sam prefers green tea to coffee', 'Sam works at Acme as a pilot'],
          });
    }
    if (result.toolName === 'remember') return say('Noted.');
    const value = result.output.type === 'json' ? result.output.value : undefined;
    const facts = (value as { results: { fact: string }[] }).results.map((hit) => hit.fact);
    return say(facts.length > 0 ? `From memory: ${facts[0]}.` : 'I do not know.');
  },
});

const memory = await openMemory();
try {
  console.log(`Engram: ${memory.where}`);
  // `abstain: false`: answer the best match even when weak (this demo memory holds two facts).
  const tools = engramTools(memory.engram, { abstain: false });

  const told = await generateText({
    model,
    tools,
    stopWhen: stepCountIs(3),
    system:
      'You have a long-term memory: remember what the user tells you, recall before answering.',
    prompt: 'I am Sam. I prefer green tea to coffee, and I work at Acme as a pilot.',
  });
  console.log(`> ${told.text}`, told.steps[0]?.toolResults[0]?.output);

  const later = await generateText({
    model,
    tools,
    stopWhen: stepCountIs(3),
    prompt: 'What does Sam prefer to drink, tea or coffee?',
  });
  console.log(`> ${later.text}`);
  if (!later.text.includes('green tea'))
    throw new Error('the agent did not recall what it was told');
} finally {
  await memory.close();
}
