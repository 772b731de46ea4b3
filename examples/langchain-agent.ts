/**
 * A LangChain agent loop with Engram as its long-term memory: one
 * conversation tells it something, a later one — sharing nothing but the
 * memory — asks.
 *
 *   npx tsx langchain-agent.ts     (in examples/; ENGRAM_URL and ENGRAM_API_KEY to use your server)
 *
 * The model is a scripted stand-in, so this runs with no network and no key:
 * put a real chat model in its place (`new ChatOpenAI({ model: 'gpt-4.1' }).bindTools(tools)`
 * from `@langchain/openai`, …) and it decides the tool calls itself. The
 * tools work the same in a LangGraph `createReactAgent` or `ToolNode`.
 */
import {
  AIMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  type BaseMessage,
} from '@langchain/core/messages';
import { RunnableLambda } from '@langchain/core/runnables';
import { engramTools } from '@engram/client/langchain';
import { openMemory } from './local-server.js';

/** What a real model would do here: remember what it is told, recall what it is asked. */
const model = RunnableLambda.from((messages: BaseMessage[]): AIMessage => {
  const last = messages.at(-1);
  if (last instanceof ToolMessage) {
    if (last.name === 'remember') return new AIMessage('Noted.');
    const { results } = JSON.parse(String(last.content)) as { results: { fact: string }[] };
    return new AIMessage(results[0] ? `From memory: ${results[0].fact}.` : 'I do not know.');
  }
  const asked = String(last?.content ?? '');
  const call = asked.endsWith('?')
    ? { name: 'recall', args: { question: asked } }
    : {
        name: 'remember',
        args: { entity: 'Ada', type: 'person', facts: ['Ada is allergic to peanuts'] },
      };
  return new AIMessage({ content: '', tool_calls: [{ ...call, id: `call-${call.name}` }] });
});

const memory = await openMemory();
try {
  console.log(`Engram: ${memory.where}`);
  // `abstain: false`: answer the best match even when weak (this demo memory holds one fact).
  const tools = engramTools(memory.engram, { abstain: false });
  const byName = new Map(tools.map((tool) => [tool.name, tool]));

  /** The agent loop: the model answers, or asks for tools whose results it reads next. */
  async function chat(text: string): Promise<string> {
    const messages: BaseMessage[] = [
      new SystemMessage(
        'You have a long-term memory: remember what you are told, recall before answering.',
      ),
      new HumanMessage(text),
    ];
    for (let step = 0; step < 5; step += 1) {
      const reply = await model.invoke(messages);
      messages.push(reply);
      if (!reply.tool_calls?.length) return String(reply.content);
      for (const call of reply.tool_calls) {
        const tool = byName.get(call.name);
        if (!tool) throw new Error(`no tool ${call.name}`);
        messages.push((await tool.invoke({ ...call, type: 'tool_call' })) as ToolMessage);
      }
    }
    throw new Error('the agent did not finish');
  }

  console.log(`> ${await chat('Please remember that Ada is allergic to peanuts.')}`);
  const answer = await chat('Is Ada allergic to anything?');
  console.log(`> ${answer}`);
  if (!answer.includes('peanuts')) throw new Error('the agent did not recall what it was told');
} finally {
  await memory.close();
}
