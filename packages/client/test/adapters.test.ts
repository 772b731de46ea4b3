/**
 * The framework adapters end to end: each framework's own test model (or a
 * scripted one where it has none) calls Engram's tools through the
 * framework's agent loop, against a real server.
 */
import {
  AIMessage,
  AIMessageChunk,
  HumanMessage,
  type BaseMessage,
} from '@langchain/core/messages';
import type { DynamicStructuredTool } from '@langchain/core/tools';
import { FakeListChatModel, FakeStreamingChatModel } from '@langchain/core/utils/testing';
import {
  Agent,
  Runner,
  Usage,
  type AgentInputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
} from '@openai/agents';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engram } from '../src/index.js';
import { engramTools as aiSdkTools } from '../src/adapters/ai-sdk.js';
import {
  engramToolDefinitions,
  runEngramTool,
  selectEngramTools,
} from '../src/adapters/definitions.js';
import { engramTools as langchainTools } from '../src/adapters/langchain.js';
import { engramTools as openAiAgentsTools } from '../src/adapters/openai-agents.js';
import { clientFor, newAccount, startServer, type TestServer } from './server.js';

let server: TestServer;
let engram: Engram;

beforeAll(async () => {
  server = await startServer();
  engram = clientFor(server, (await newAccount(server, 'team')).apiKey);
});
afterAll(() => server.close());

/** A fresh space per test, so their graphs do not meet. */
let spaces = 0;
function inNewSpace(): Engram {
  spaces += 1;
  return engram.withSpace(`adapters-${spaces}`, { create: true });
}

async function factsOf(client: Engram, name: string): Promise<string[] | undefined> {
  for await (const entity of client.entities.list({ query: name })) {
    if (entity.name === name) return entity.observations.map((observation) => observation.content);
  }
  return undefined;
}

const NAMES = [
  'remember',
  'recall',
  'forget',
  'search_nodes',
  'open_nodes',
  'create_relations',
  'delete_relations',
  'get_neighbors',
  'get_context',
];

describe('the shared definitions', () => {
  it('name every tool once, each with a description and an object schema', () => {
    expect(engramToolDefinitions.map((tool) => tool.name)).toEqual(NAMES);
    for (const tool of engramToolDefinitions) {
      expect(tool.description.length).toBeGreaterThan(40);
      expect(tool.parameters).toMatchObject({ type: 'object', additionalProperties: false });
      for (const key of tool.parameters.required)
        expect(tool.parameters.properties).toHaveProperty(key);
    }
    expect(selectEngramTools({ readOnly: true }).map((tool) => tool.name)).toEqual([
      'recall',
      'search_nodes',
      'open_nodes',
      'get_neighbors',
      'get_context',
    ]);
    expect(() => selectEngramTools({ only: ['nope' as 'recall'] })).toThrow(/no tool named "nope"/);
  });

  it('remember, recall, the graph tools and forget change and read the real memory', async () => {
    const client = inNewSpace();
    const byName = Object.fromEntries(engramToolDefinitions.map((tool) => [tool.name, tool]));
    // The server's abstention is tuned for real memories (with embeddings): this one is tiny.
    const call = (name: string, args: unknown) =>
      runEngramTool(byName[name]!, client, args, { abstain: false });

    expect(
      await call('remember', {
        entity: 'Maya',
        type: 'person',
        facts: ['Maya started a new job at Acme in March 2024', 'Maya prefers tea over coffee'],
      }),
    ).toMatchObject({ entity: 'Maya', type: 'person', created: true, alreadyKnown: 0 });
    // Again, with one fact it has: added to the same entity, the repeat skipped; `type` defaults.
    expect(
      await call('remember', {
        entity: 'maya',
        facts: ['Maya prefers tea over coffee', 'Maya plays chess'],
      }),
    ).toMatchObject({
      entity: 'Maya',
      created: false,
      added: ['Maya plays chess'],
      alreadyKnown: 1,
    });
    expect(
      await call('remember', { entity: 'Acme', facts: ['Acme builds rockets'] }),
    ).toMatchObject({
      type: 'thing',
      created: true,
    });
    expect(await factsOf(client, 'Maya')).toHaveLength(3);

    const recalled = (await call('recall', {
      question: 'When did Maya start her new job?',
      limit: 3,
    })) as {
      results: { fact: string; entity: string }[];
    };
    expect(recalled.results[0]).toMatchObject({
      fact: 'Maya started a new job at Acme in March 2024',
      entity: 'Maya',
    });

    expect(
      await call('create_relations', {
        relations: [
          { from: 'Maya', to: 'Acme', relationType: 'works_at' },
          { from: 'Maya', to: 'Acme', relationType: 'works_at' },
        ],
      }),
    ).toEqual({
      created: [{ from: 'Maya', to: 'Acme', relationType: 'works_at' }],
      alreadyKnown: [{ from: 'Maya', to: 'Acme', relationType: 'works_at' }],
    });
    await expect(
      call('create_relations', {
        relations: [{ from: 'Maya', to: 'Nobody', relationType: 'knows' }],
      }),
    ).rejects.toThrow(/No entity named "Nobody"/);

    expect(await call('open_nodes', { names: ['Maya', 'Ghost'] })).toMatchObject({
      entities: [{ name: 'Maya', entityType: 'person' }],
      relations: [{ from: 'Maya', to: 'Acme', relationType: 'works_at' }],
      missing: ['Ghost'],
    });
    expect(await call('get_neighbors', { name: 'Acme' })).toMatchObject({
      relations: [{ from: 'Maya', to: 'Acme', relationType: 'works_at' }],
    });
    const found = (await call('search_nodes', { query: 'rockets' })) as {
      entities: { name: string }[];
    };
    expect(found.entities.map((entity) => entity.name)).toEqual(['Acme']);
    const context = (await call('get_context', { query: 'Does Maya prefer tea or coffee?' })) as {
      context: string;
    };
    expect(context.context).toContain('tea');

    expect(
      await call('delete_relations', {
        relations: [{ from: 'Maya', to: 'Acme', relationType: 'works_at' }],
      }),
    ).toMatchObject({ deleted: [{ from: 'Maya', to: 'Acme' }], notFound: [] });
    expect((await client.relations.list().toArray()).length).toBe(0);

    expect(await call('forget', { entity: 'Maya', fact: 'Maya plays checkers' })).toMatchObject({
      forgotten: false,
      reason: '"Maya" has no such fact',
    });
    expect(await call('forget', { entity: 'Maya', fact: 'maya plays chess' })).toEqual({
      forgotten: true,
      entity: 'Maya',
      fact: 'Maya plays chess',
    });
    expect(await factsOf(client, 'Maya')).toEqual([
      'Maya started a new job at Acme in March 2024',
      'Maya prefers tea over coffee',
    ]);
    expect(await call('forget', { entity: 'Acme' })).toEqual({ forgotten: true, entity: 'Acme' });
    expect(await factsOf(client, 'Acme')).toBeUndefined();
  });

  it('refuse arguments that do not fit the schema, naming the field', async () => {
    const remember = engramToolDefinitions[0];
    await expect(runEngramTool(remember, engram, { entity: 'X' })).rejects.toThrow(
      'remember: arguments.facts is required',
    );
    await expect(runEngramTool(remember, engram, { entity: 'X', facts: [3] })).rejects.toThrow(
      'remember: arguments.facts[0] must be a string',
    );
    await expect(
      runEngramTool(engramToolDefinitions[1], engram, { question: 'x', limit: 500 }),
    ).rejects.toThrow('recall: arguments.limit must be at most 50');
  });
});

// ── Vercel AI SDK ───────────────────────────────────────────────────────────

type GenerateResult = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;
const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};
const toolCalls = (...calls: [string, unknown][]): GenerateResult => ({
  content: calls.map(([toolName, input], i) => ({
    type: 'tool-call',
    toolCallId: `call-${toolName}-${i}`,
    toolName,
    input: JSON.stringify(input),
  })),
  finishReason: { unified: 'tool-calls', raw: undefined },
  usage,
  warnings: [],
});
const answer = (text: string): GenerateResult => ({
  content: [{ type: 'text', text }],
  finishReason: { unified: 'stop', raw: undefined },
  usage,
  warnings: [],
});

describe('Vercel AI SDK (@engram/client/ai-sdk)', () => {
  it('a mock model remembers, then recalls, through generateText', async () => {
    const client = inNewSpace();
    const tools = aiSdkTools(client, { abstain: false });
    expect(Object.keys(tools)).toEqual(NAMES);

    const model = new MockLanguageModelV3({
      doGenerate: async ({ prompt }) => {
        const toolMessages = prompt.filter((message) => message.role === 'tool');
        if (toolMessages.length === 0) {
          return toolCalls([
            'remember',
            { entity: 'Ada Lovelace', type: 'person', facts: ['Wrote the first program'] },
          ]);
        }
        if (toolMessages.length === 1)
          return toolCalls(['recall', { question: 'Who wrote the first program?' }]);
        // The answer is read from recall's result, as a model would.
        const last = toolMessages.at(-1)!.content[0]!;
        const output = last.type === 'tool-result' ? last.output : undefined;
        const value =
          output?.type === 'json' ? (output.value as { results: { entity: string }[] }) : undefined;
        return answer(`It was ${value?.results[0]?.entity ?? 'nobody'}.`);
      },
    });

    const result = await generateText({
      model,
      tools,
      stopWhen: stepCountIs(5),
      prompt: 'Remember that Ada Lovelace wrote the first program, then tell me who did.',
    });

    expect(result.text).toBe('It was Ada Lovelace.');
    expect(result.steps.map((step) => step.toolResults.map((r) => r.toolName))).toEqual([
      ['remember'],
      ['recall'],
      [],
    ]);
    expect(result.steps[0]!.toolResults[0]!.output).toMatchObject({
      created: true,
      added: ['Wrote the first program'],
    });
    expect(await factsOf(client, 'Ada Lovelace')).toEqual(['Wrote the first program']);
    // The schemas went to the model as JSON Schema, with the descriptions.
    const offered = model.doGenerateCalls[0]!.tools!;
    expect(offered.map((tool) => tool.name)).toEqual(NAMES);
    expect(offered[0]).toMatchObject({
      type: 'function',
      description: expect.stringContaining('long-term memory'),
      inputSchema: { type: 'object', required: ['entity', 'facts'] },
    });
  });

  it('tells the model when its arguments do not fit, and forget deletes', async () => {
    const client = inNewSpace();
    await client.entities.create({
      name: 'Bob',
      type: 'person',
      observations: ['Likes jazz', 'Owns a cat'],
    });
    const model = new MockLanguageModelV3({
      doGenerate: async ({ prompt }) => {
        const turns = prompt.filter((message) => message.role === 'tool').length;
        if (turns === 0) return toolCalls(['forget', { fact: 'Owns a cat' }]);
        if (turns === 1) return toolCalls(['forget', { entity: 'Bob', fact: 'Owns a cat' }]);
        return answer('Done.');
      },
    });
    const result = await generateText({
      model,
      tools: aiSdkTools(client, { only: ['forget'] }),
      stopWhen: stepCountIs(4),
      prompt: 'Forget that Bob owns a cat.',
    });
    expect(result.text).toBe('Done.');
    const firstStep = result.steps[0]!.content.find((part) => part.type === 'tool-error');
    expect(firstStep).toMatchObject({ toolName: 'forget' });
    expect(String((firstStep as { error: unknown }).error)).toContain(
      'arguments.entity is required',
    );
    expect(result.steps[1]!.toolResults[0]!.output).toEqual({
      forgotten: true,
      entity: 'Bob',
      fact: 'Owns a cat',
    });
    expect(await factsOf(client, 'Bob')).toEqual(['Likes jazz']);
  });
});

// ── LangChain ───────────────────────────────────────────────────────────────

describe('LangChain (@engram/client/langchain)', () => {
  it('tools bound to a fake chat model are called from its tool calls', async () => {
    const client = inNewSpace();
    const tools = langchainTools(client, { abstain: false });
    expect(tools.map((tool) => tool.name)).toEqual(NAMES);
    const byName = new Map<string, DynamicStructuredTool>(tools.map((tool) => [tool.name, tool]));

    // The model asks for two tools at once; a second one gives the final answer.
    const asking = new FakeStreamingChatModel({
      chunks: [
        new AIMessageChunk({
          content: '',
          tool_calls: [
            {
              id: 'call-1',
              name: 'remember',
              args: {
                entity: 'Grace Hopper',
                type: 'person',
                facts: ['Invented the first compiler'],
              },
              type: 'tool_call',
            },
            {
              id: 'call-2',
              name: 'remember',
              args: { entity: 'COBOL', type: 'language', facts: ['COBOL was designed in 1959'] },
              type: 'tool_call',
            },
          ],
        }),
      ],
    }).bindTools(tools);
    // The model was offered each tool with its JSON Schema, as a provider would send it.
    const offered = (asking as unknown as { config: { tools: { function: unknown }[] } }).config
      .tools;
    expect(offered.map((tool) => (tool.function as { name: string }).name)).toEqual(NAMES);
    expect(offered[0]!.function).toMatchObject({
      parameters: { type: 'object', required: ['entity', 'facts'] },
    });
    const messages: BaseMessage[] = [new HumanMessage('Remember what Grace Hopper did.')];
    const reply = (await asking.invoke(messages)) as AIMessage;
    messages.push(reply);
    expect(reply.tool_calls?.map((call) => call.name)).toEqual(['remember', 'remember']);
    for (const call of reply.tool_calls ?? []) {
      const message = await byName.get(call.name)!.invoke({ ...call, type: 'tool_call' });
      expect(message).toMatchObject({ tool_call_id: call.id, artifact: { created: true } });
      messages.push(message);
    }
    const final = await new FakeListChatModel({ responses: ['Saved.'] }).invoke(messages);
    expect(final.content).toBe('Saved.');
    expect(await factsOf(client, 'Grace Hopper')).toEqual(['Invented the first compiler']);

    // Called directly, a tool answers its result as JSON text.
    const related = await byName.get('create_relations')!.invoke({
      relations: [{ from: 'Grace Hopper', to: 'COBOL', relationType: 'influenced' }],
    });
    expect(JSON.parse(related as string)).toMatchObject({
      created: [{ from: 'Grace Hopper', to: 'COBOL' }],
    });
    const recalled = JSON.parse(
      (await byName
        .get('recall')!
        .invoke({ question: 'Who invented the first compiler?' })) as string,
    ) as { results: { entity: string }[] };
    expect(recalled.results[0]!.entity).toBe('Grace Hopper');
    // LangChain checks the JSON Schema itself before the tool runs.
    await expect(byName.get('recall')!.invoke({ limit: 2 })).rejects.toThrow();
  });
});

// ── OpenAI Agents SDK ───────────────────────────────────────────────────────

/** A model with no network: answers each turn from `script`, given what the run sent so far. */
class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  constructor(
    private readonly script: (input: AgentInputItem[], turn: number) => ModelResponse['output'],
  ) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const input = typeof request.input === 'string' ? [] : request.input;
    return { usage: new Usage(), output: this.script(input, this.requests.length - 1) };
  }

  // eslint-disable-next-line require-yield -- this model never streams
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('not streamed');
  }
}

const functionCall = (name: string, args: unknown, callId: string) => ({
  type: 'function_call' as const,
  callId,
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
function lastToolOutput(input: AgentInputItem[]): string {
  const item = input.findLast((entry) => entry.type === 'function_call_result');
  if (!item || item.type !== 'function_call_result') return '';
  const output = item.output;
  return typeof output === 'string'
    ? output
    : 'text' in output
      ? String(output.text)
      : JSON.stringify(output);
}

describe('OpenAI Agents SDK (@engram/client/openai-agents)', () => {
  it('an agent on a scripted model remembers and recalls through run()', async () => {
    const client = inNewSpace();
    const tools = openAiAgentsTools(client, { abstain: false });
    expect(tools.map((tool) => tool.name)).toEqual(NAMES);
    expect(tools[0]).toMatchObject({ type: 'function', strict: false });

    const model = new ScriptedModel((input, turn) => {
      if (turn === 0) {
        return [
          functionCall(
            'remember',
            { entity: 'Linus', type: 'person', facts: ['Linus wrote Linux in 1991'] },
            'c1',
          ),
        ];
      }
      if (turn === 1) return [functionCall('recall', { question: 'Who wrote Linux?' }, 'c2')];
      const recalled = JSON.parse(lastToolOutput(input)) as { results: { fact: string }[] };
      return [message(recalled.results[0]?.fact ?? 'I do not know.')];
    });
    const agent = new Agent({ name: 'Memory', instructions: 'Use your memory.', model, tools });
    const result = await new Runner({ tracingDisabled: true }).run(agent, 'Who wrote Linux?');

    expect(result.finalOutput).toBe('Linus wrote Linux in 1991');
    expect(await factsOf(client, 'Linus')).toEqual(['Linus wrote Linux in 1991']);
    const offered = model.requests[0]!.tools.map((tool) => tool.name);
    expect(offered).toEqual(NAMES);
    expect(model.requests[0]!.tools[0]).toMatchObject({
      type: 'function',
      strict: false,
      parameters: { type: 'object', required: ['entity', 'facts'] },
    });
  });

  it('a failed call is the tool output the model reads next', async () => {
    const client = inNewSpace();
    const model = new ScriptedModel((input, turn) =>
      turn === 0
        ? [functionCall('get_neighbors', { name: 'Nobody' }, 'c1')]
        : [message(lastToolOutput(input))],
    );
    const agent = new Agent({
      name: 'Memory',
      model,
      tools: openAiAgentsTools(client, { readOnly: true }),
    });
    const result = await new Runner({ tracingDisabled: true }).run(agent, 'Who is near Nobody?');
    expect(String(result.finalOutput)).toContain('No entity named "Nobody"');
  });
});
