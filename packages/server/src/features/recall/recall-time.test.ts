import type { ContextAnswer, RecallAnswer } from '@engram/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEntity, getJson, newAccount, type Account } from '../../test/graph-fixtures.js';
import { createTestApp, manualClock, type TestApp } from '../../test/harness.js';
import { expectValidationError } from '../../test/http-assertions.js';
import { callTool, callToolError, connectMcp } from '../../test/mcp-client.js';

// Issue 60: time in recall's questions and answers (since/until, time words
// against a fixed `now`, asOf with a range), and entities named by an alias.

const clock = manualClock();
let t: TestApp;
let memory: Account;
let baseUrl: string;
let apiKey: string;

const dated = (content: string, validFrom?: string, validTo?: string) => ({
  content,
  ...(validFrom ? { validFrom } : {}),
  ...(validTo ? { validTo } : {}),
});

beforeAll(async () => {
  t = await createTestApp({}, { now: clock.now });
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  memory = await newAccount(t.app);
  await createEntity(memory.req, {
    name: 'Sam',
    type: 'person',
    observations: [
      dated('Sam went hiking in the Alps', '2024-03-10T09:00:00Z'),
      dated('Sam signed up for a pottery class', '2024-03-01T00:00:00Z'),
      dated('Sam moved to a flat near the river', '2024-03-31T23:59:59Z'),
      dated('Sam learned to sail', '2024-04-01T00:00:00Z'),
      dated('Sam painted the hallway', '2024-02-29T23:59:59Z'),
      dated('Sam worked at the bakery', '2023-06-01T00:00:00Z', '2024-02-29T00:00:00Z'),
      dated('Sam joined a climbing club', '2023-06-01T00:00:00Z'),
      dated('Sam works at Northwind as an engineer', '2024-03-01T00:00:00Z'),
      dated('Sam will work at Contoso', '2025-01-01T00:00:00Z'),
      'Sam plays chess on Sundays',
      'Sam baked bread for the market last month',
    ],
  });
  await createEntity(memory.req, {
    name: 'Augusta Ada King',
    type: 'person',
    observations: ['Translated a paper on the Analytical Engine', 'Born in London'],
  });
  const ada = await memory.req({ method: 'GET', url: '/api/entities?query=Augusta' });
  const id = ada.json<{ entities: { id: string }[] }>().entities[0]!.id;
  const renamed = await memory.req({
    method: 'PUT',
    url: `/api/entities/${id}`,
    payload: { name: 'Augusta Ada King', type: 'person', aliases: ['Ada Lovelace', 'A. Lovelace'] },
  });
  expect(renamed.statusCode, renamed.body).toBe(200);
  apiKey = (
    await memory.req({ method: 'POST', url: '/api/keys', payload: { name: 'agent' } })
  ).json<{ apiKey: string }>().apiKey;
});

afterAll(async () => {
  await t?.close();
});

const recall = (query: string, extra = '') =>
  getJson<RecallAnswer>(memory.req, `/api/recall?q=${encodeURIComponent(query)}&limit=50${extra}`);
const texts = (answer: RecallAnswer) => answer.results.map((result) => result.observation);
const ALL = 'What did Sam do?';

describe('recall with since and until', () => {
  it('keeps the facts in range, both ends inclusive', async () => {
    const answer = await recall(ALL, '&since=2024-03-01T00:00:00Z&until=2024-03-31T23:59:59Z');
    expect(answer.timeRange).toEqual({
      since: '2024-03-01T00:00:00.000Z',
      until: '2024-03-31T23:59:59.000Z',
      source: 'parameters',
    });
    expect(texts(answer).sort()).toEqual(
      [
        'Sam went hiking in the Alps',
        'Sam signed up for a pottery class',
        'Sam moved to a flat near the river',
        'Sam works at Northwind as an engineer',
      ].sort(),
    );
    const first = answer.results.find((r) => r.observation === 'Sam went hiking in the Alps')!;
    expect(first).toMatchObject({ validFrom: '2024-03-10T09:00:00.000Z', validTo: null });
    expect(first.createdAt).toBeTruthy();
  });

  it('reads a date alone as since its first and until its last instant', async () => {
    const answer = await recall(ALL, '&since=2024-03-31&until=2024-03-31');
    expect(texts(answer)).toEqual(['Sam moved to a flat near the river']);
    const open = await recall(ALL, '&since=2024-04-01');
    expect(texts(open)).toEqual(
      expect.arrayContaining(['Sam learned to sail', 'Sam plays chess on Sundays']),
    );
    expect(texts(open)).not.toContain('Sam moved to a flat near the river');
  });

  it('keeps a span that overlaps the range, and a point only inside it', async () => {
    const answer = await recall(ALL, '&since=2024-01-01&until=2024-01-31');
    expect(texts(answer)).toEqual(['Sam worked at the bakery']);
    const start = await recall(ALL, '&since=2023-06-01&until=2023-06-01');
    expect(texts(start).sort()).toEqual(
      ['Sam joined a climbing club', 'Sam worked at the bakery'].sort(),
    );
  });

  it("uses the time an observation was written when its fact's time is not known", async () => {
    const today = new Date().toISOString().slice(0, 10);
    expect(texts(await recall(ALL, `&since=${today}`))).toContain('Sam plays chess on Sundays');
    expect(texts(await recall(ALL, '&until=2024-12-31'))).not.toContain(
      'Sam plays chess on Sundays',
    );
  });

  it('answers timeRange null and every result dated when no time is asked', async () => {
    const answer = await recall('Where does Sam hike?');
    expect(answer.timeRange).toBeNull();
    expect(answer.results[0]).toHaveProperty('validFrom');
    expect(answer.results[0]).toHaveProperty('validTo');
  });
});

describe('time words in the question', () => {
  // Wednesday 3 April 2024.
  const NOW = '&now=2024-04-03T12:00:00Z';

  it('reads "last month" against now: dated facts outside it are left out, undated ones rank lower', async () => {
    const answer = await recall('What did Sam do last month?', NOW);
    expect(answer.timeRange).toEqual({
      since: '2024-03-01T00:00:00.000Z',
      until: '2024-03-31T23:59:59.999Z',
      source: 'question',
    });
    const kept = texts(answer);
    // Dated facts in March count as holding "last month" without writing it.
    expect(kept).toEqual(
      expect.arrayContaining([
        'Sam went hiking in the Alps',
        'Sam moved to a flat near the river',
        'Sam baked bread for the market last month',
      ]),
    );
    expect(kept).not.toContain('Sam learned to sail');
    expect(kept).not.toContain('Sam painted the hallway');
    // The undated observation is kept, after every dated one.
    const undated = answer.results.findIndex((r) => r.validFrom === null);
    expect(undated).toBeGreaterThan(0);
    expect(answer.results.slice(undated).every((r) => r.validFrom === null)).toBe(true);
  });

  it('reads "in March 2024", "before" and "after"', async () => {
    const march = await recall('What did Sam do in March 2024?');
    expect(march.timeRange?.since).toBe('2024-03-01T00:00:00.000Z');
    expect(texts(march)).not.toContain('Sam learned to sail');
    const before = await recall('What did Sam do before March 2024?', NOW);
    expect(before.timeRange).toMatchObject({ since: null, until: '2024-02-29T23:59:59.999Z' });
    expect(texts(before)).toContain('Sam painted the hallway');
    expect(texts(before)).not.toContain('Sam went hiking in the Alps');
    const after = await recall('What did Sam do after March 2024?', NOW);
    expect(after.timeRange).toMatchObject({ since: '2024-04-01T00:00:00.000Z', until: null });
    expect(texts(after)).toContain('Sam learned to sail');
    expect(texts(after)).not.toContain('Sam went hiking in the Alps');
  });

  it('ranks facts that ended below current ones for "now", and leaves out the future', async () => {
    const answer = await recall('Where does Sam work now?', NOW);
    expect(answer.timeRange).toEqual({
      since: null,
      until: '2024-04-03T12:00:00.000Z',
      source: 'question',
    });
    const kept = texts(answer);
    expect(kept[0]).toBe('Sam works at Northwind as an engineer');
    expect(kept.indexOf('Sam worked at the bakery')).toBeGreaterThan(0);
    expect(kept).not.toContain('Sam will work at Contoso');
  });

  it('reads the words against the server time when no now is given', async () => {
    const answer = await recall('What did Sam do yesterday?');
    const today = clock.now().toISOString().slice(0, 10);
    expect(answer.timeRange?.until?.slice(0, 10)).toBe(
      new Date(new Date(today).getTime() - 86_400_000).toISOString().slice(0, 10),
    );
  });

  it('lets since and until win over the words', async () => {
    const answer = await recall(
      'What did Sam do last month?',
      `${NOW}&since=2023-01-01&until=2023-12-31`,
    );
    expect(answer.timeRange).toEqual({
      since: '2023-01-01T00:00:00.000Z',
      until: '2023-12-31T23:59:59.999Z',
      source: 'parameters',
    });
    expect(texts(answer).sort()).toEqual(
      ['Sam joined a climbing club', 'Sam worked at the bakery'].sort(),
    );
  });
});

describe('get_context with a time range', () => {
  it('keeps to the range, shows each fact its date and says the range', async () => {
    const answer = await getJson<ContextAnswer>(
      memory.req,
      `/api/context?q=${encodeURIComponent(ALL)}&since=2024-03-10&until=2024-03-10`,
    );
    expect(answer.context).toBe('Sam (person)\n- [2024-03-10] Sam went hiking in the Alps');
    expect(answer.entities).toEqual([
      { name: 'Sam', type: 'person', observations: ['Sam went hiking in the Alps'] },
    ]);
    expect(answer.timeRange).toMatchObject({ source: 'parameters' });
    const span = await getJson<ContextAnswer>(
      memory.req,
      `/api/context?q=${encodeURIComponent('bakery')}`,
    );
    expect(span.context).toContain('- [2023-06-01 to 2024-02-29] Sam worked at the bakery');
    expect(span.timeRange).toBeNull();
  });
});

describe('refusals', () => {
  it('refuses bad times and a since after until, naming the field', async () => {
    for (const [query, field] of [
      ['since=yesterday', 'query.since'],
      ['until=2024-13-01', 'query.until'],
      ['now=2024-02-30T00:00:00', 'query.now'],
      ['since=2024-03-02&until=2024-03-01', 'query.until'],
    ] as const) {
      for (const path of ['/api/recall', '/api/context']) {
        await expectValidationError(
          await memory.req({ method: 'GET', url: `${path}?q=Sam&${query}` }),
          [field],
        );
      }
    }
    // The same day as since and until is a range of one day, not a refusal.
    expect((await recall(ALL, '&since=2024-03-31&until=2024-03-31')).results).toHaveLength(1);
  });
});

describe('MCP recall and get_context with time', () => {
  it('take since, until and now, and refuse since after until', async () => {
    const client = await connectMcp(baseUrl, apiKey);
    try {
      const answer = await callTool<RecallAnswer>(client, 'recall', {
        query: 'What did Sam do last month?',
        now: '2024-04-03',
      });
      expect(answer.timeRange?.source).toBe('question');
      const raw = (await client.callTool({
        name: 'recall',
        arguments: { query: ALL, since: '2024-03-10', until: '2024-03-10' },
      })) as { content: { text: string }[] };
      expect(raw.content[0]!.text).toBe(
        '1. [Sam (person), 2024-03-10] Sam went hiking in the Alps',
      );
      const undated = (await client.callTool({
        name: 'recall',
        arguments: { query: 'chess' },
      })) as { content: { text: string }[] };
      expect(undated.content[0]!.text).toMatch(/^1\. \[Sam \(person\), noted \d{4}-\d{2}-\d{2}\] /);

      const context = await callTool<ContextAnswer>(client, 'get_context', {
        query: ALL,
        since: '2024-03-31',
        until: '2024-03-31',
      });
      expect(context.context).toContain('[2024-03-31] Sam moved to a flat near the river');
      expect(
        await callToolError(client, 'recall', {
          query: ALL,
          since: '2024-02',
          until: '2024-01-01',
        }),
      ).toMatch(/since/);
      expect(
        await callToolError(client, 'get_context', {
          query: ALL,
          since: '2024-03-02',
          until: '2024-03-01',
        }),
      ).toMatch(/until must not be before since/);
    } finally {
      await client.close();
    }
  });

  it('applies the range inside the graph as it was asOf', async () => {
    const account = await newAccount(t.app);
    const key = (
      await account.req({ method: 'POST', url: '/api/keys', payload: { name: 'agent' } })
    ).json<{ apiKey: string }>().apiKey;
    const client = await connectMcp(baseUrl, key);
    try {
      await callTool(client, 'create_entities', {
        entities: [{ name: 'Rosa', entityType: 'person', observations: [] }],
      });
      await callTool(client, 'add_observations', {
        observations: [
          {
            entityName: 'Rosa',
            contents: ['Rosa painted the fence green'],
            validFrom: '2024-03-05',
          },
        ],
      });
      await callTool(client, 'add_observations', {
        observations: [
          { entityName: 'Rosa', contents: ['Rosa painted the barn red'], validFrom: '2023-05-01' },
        ],
      });
      clock.advanceMs(60_000);
      const then = clock.now().toISOString();
      clock.advanceMs(60_000);
      await callTool(client, 'add_observations', {
        observations: [
          { entityName: 'Rosa', contents: ['Rosa painted the shed blue'], validFrom: '2024-03-06' },
        ],
      });
      const ask = (extra: Record<string, unknown>) =>
        callTool<RecallAnswer>(client, 'recall', { query: 'What did Rosa paint?', ...extra });

      const now = await ask({ since: '2024-03-01', until: '2024-03-31' });
      expect(texts(now).sort()).toEqual(
        ['Rosa painted the fence green', 'Rosa painted the shed blue'].sort(),
      );
      const past = await ask({ since: '2024-03-01', until: '2024-03-31', asOf: then });
      expect(texts(past)).toEqual(['Rosa painted the fence green']);
      expect(past.results[0]).toMatchObject({ validFrom: '2024-03-05T00:00:00.000Z' });
      expect(past.timeRange).toMatchObject({ source: 'parameters' });
      // Time words are read against asOf's time when no now is given.
      const lastYear = await ask({ asOf: then, query: 'What did Rosa paint in 2023?' });
      expect(texts(lastYear)).toEqual(['Rosa painted the barn red']);
    } finally {
      await client.close();
    }
  });
});

describe('entities named by an alias', () => {
  it('are found by the words of an alias as by those of their name', async () => {
    for (const question of ['Tell me about Lovelace', 'What did A. Lovelace translate?']) {
      const answer = await recall(question);
      expect(answer.results.length, question).toBeGreaterThan(0);
      expect(answer.results.every((r) => r.entityName === 'Augusta Ada King')).toBe(true);
    }
    const answer = await recall('Where was Ada Lovelace born?');
    expect(answer.results[0]?.observation).toBe('Born in London');
  });
});
