import type { ContextAnswer, RecallAnswer } from '@engram/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createEntity,
  createRelation,
  getJson,
  newAccount,
  type Account,
} from '../../test/graph-fixtures.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { expectValidationError } from '../../test/http-assertions.js';
import { callTool, connectEra } from '../../test/mcp-client.js';

let t: TestApp;
let memory: Account;
let baseUrl: string;
let apiKey: string;

/** A small memory: two people talking, a few facts, and unrelated noise. */
beforeAll(async () => {
  t = await createTestApp();
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  memory = await newAccount(t.app);
  const maya = await createEntity(memory.req, {
    name: 'Maya',
    type: 'person',
    observations: [
      'I finally signed the offer from Northwind, so excited about the team',
      'Started a new job at Northwind as a data engineer on 3 March 2024',
      'My sister keeps asking me to visit her in Lisbon',
      'I adopted a rescue greyhound called Pepper',
    ],
  });
  const leo = await createEntity(memory.req, {
    name: 'Leo',
    type: 'person',
    observations: [
      'I have been running every morning before work',
      'We painted the kitchen blue over the weekend',
      'My job at the bakery starts at five in the morning',
    ],
  });
  const northwind = await createEntity(memory.req, {
    name: 'Northwind',
    type: 'company',
    observations: [
      'A logistics company headquartered in Rotterdam',
      'Uses PostgreSQL for every service',
    ],
  });
  await createEntity(memory.req, {
    name: 'Gardening notes',
    type: 'note',
    observations: ['Tomatoes need more sun than the balcony gets', 'Basil grows well indoors'],
  });
  await createRelation(memory.req, maya, northwind, 'works_at');
  await createRelation(memory.req, maya, leo, 'knows');
  apiKey = (
    await memory.req({ method: 'POST', url: '/api/keys', payload: { name: 'agent' } })
  ).json<{ apiKey: string }>().apiKey;
});

afterAll(async () => {
  await t?.close();
});

const recall = (account: Account, query: string, extra = '') =>
  getJson<RecallAnswer>(account.req, `/api/recall?q=${encodeURIComponent(query)}${extra}`);

describe('GET /api/recall', () => {
  it('answers individual observations with their entity, best first', async () => {
    const answer = await recall(memory, 'When did Maya start her new job?');
    expect(answer.query).toBe('When did Maya start her new job?');
    const first = answer.results[0]!;
    expect(first).toMatchObject({
      observation: 'Started a new job at Northwind as a data engineer on 3 March 2024',
      entityName: 'Maya',
      entityType: 'person',
    });
    expect(Object.keys(first).sort()).toEqual(
      [
        'confidence',
        'createdAt',
        'entityId',
        'entityName',
        'entityType',
        'observation',
        'observationId',
        'score',
        'validFrom',
        'validTo',
      ].sort(),
    );
    const scores = answer.results.map((result) => result.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('matches words by their stem', async () => {
    const answer = await recall(memory, 'who runs in the mornings?');
    expect(answer.results[0]?.observation).toBe('I have been running every morning before work');
  });

  it('prefers the person the question names', async () => {
    const answer = await recall(memory, "Where is Leo's job?");
    expect(answer.results[0]).toMatchObject({
      entityName: 'Leo',
      observation: 'My job at the bakery starts at five in the morning',
    });
  });

  it('finds observations of a named entity that do not repeat its name', async () => {
    const answer = await recall(memory, 'Tell me about Maya');
    expect(answer.results.length).toBeGreaterThan(0);
    expect(answer.results.every((result) => result.entityName === 'Maya')).toBe(true);
  });

  it("finds a named entity's older observation through a word the whole memory repeats", async () => {
    // "weather" is in 1,000 observations written first: more than the candidates a word brings.
    // Maya's observation holding it is her oldest, behind 25 newer ones.
    const large = await newAccount(t.app);
    for (let walker = 0; walker < 10; walker += 1) {
      await createEntity(large.req, {
        name: `Walker ${walker}`,
        type: 'person',
        observations: Array.from({ length: 100 }, (_, day) => `Day ${day}: the weather held`),
      });
    }
    await createEntity(large.req, {
      name: 'Maya',
      type: 'person',
      observations: [
        'The weather in Lisbon turned to storms all week',
        ...Array.from({ length: 25 }, (_, n) => `Pottery lesson ${n} went fine`),
      ],
    });
    const answer = await recall(large, 'What did Maya say about the weather?');
    expect(answer.results.map((result) => result.observation)).toContain(
      'The weather in Lisbon turned to storms all week',
    );
  });

  it('prefers observations carrying a date for questions about time', async () => {
    const answer = await recall(memory, 'When did Maya join Northwind?');
    expect(answer.results[0]?.observation).toContain('3 March 2024');
  });

  it('answers nothing for a question nothing in memory answers', async () => {
    expect((await recall(memory, 'What is the capital of Mongolia?')).results).toEqual([]);
    expect((await recall(memory, 'who was it and what about them?')).results).toEqual([]);
  });

  it('keeps to the asked types and entities, and to the limit', async () => {
    const companies = await recall(memory, 'Northwind', '&types=company');
    expect(companies.results.length).toBeGreaterThan(0);
    expect(companies.results.every((result) => result.entityType === 'company')).toBe(true);

    const leos = await recall(memory, 'job morning', '&entities=Leo');
    expect(leos.results.length).toBeGreaterThan(0);
    expect(leos.results.every((result) => result.entityName === 'Leo')).toBe(true);

    expect((await recall(memory, 'job', '&entities=Nobody')).results).toEqual([]);
    expect((await recall(memory, 'job morning Northwind Maya', '&limit=1')).results).toHaveLength(
      1,
    );
  });

  it("never shows another account's observations", async () => {
    const stranger = await newAccount(t.app);
    expect((await recall(stranger, 'When did Maya start her new job?')).results).toEqual([]);
    await createEntity(stranger.req, { name: 'Maya', type: 'person', observations: ['Likes tea'] });
    // Northwind is nothing this account's memory mentions: recall abstains unless asked not to.
    expect(await recall(stranger, 'Maya job Northwind')).toMatchObject({
      results: [],
      abstained: true,
    });
    const answer = await recall(stranger, 'Maya job Northwind', '&abstain=false');
    expect(answer.results.map((result) => result.observation)).toEqual(['Likes tea']);
  });

  it('refuses bad input naming the field', async () => {
    await expectValidationError(await memory.req({ method: 'GET', url: '/api/recall' }), [
      'query.q',
    ]);
    await expectValidationError(await memory.req({ method: 'GET', url: '/api/recall?q=%20' }), [
      'query.q',
    ]);
    await expectValidationError(
      await memory.req({ method: 'GET', url: '/api/recall?q=job&limit=51' }),
      ['query.limit'],
    );
    await expectValidationError(
      await memory.req({ method: 'GET', url: `/api/recall?q=${'a'.repeat(1001)}` }),
      ['query.q'],
    );
    const unauthenticated = await t.app.inject({ method: 'GET', url: '/api/recall?q=job' });
    expect(unauthenticated.statusCode).toBe(401);
  });

  it('reads any characters as words, never as query syntax', async () => {
    for (const query of ["it's & | ! ( ) :* '\\ \"", 'a:*b', "o'brien's \\'x"]) {
      const response = await memory.req({
        method: 'GET',
        url: `/api/recall?q=${encodeURIComponent(query)}`,
      });
      expect(response.statusCode, response.body).toBe(200);
    }
  });
});

describe('observations beside a match', () => {
  // A conversation stored turn by turn: the turn that answers follows the one the question's words match.
  const turns = [
    'Morning! Long shift at the hospital yesterday',
    'The new espresso machine at work is a lifesaver',
    'Sounds good. Oh, I have news too. I adopted a cat!',
    "His name is Pickles, he's two, orange, and has no thoughts in his head",
    'Rosa and Mateo set a wedding date in October',
    'I signed up for a half marathon in September',
    'My knee is holding up fine so far',
    'Planning to visit my parents in Guadalajara',
    'Trying to learn to bake sourdough bread',
    'Our team won the hospital trivia night',
    'See you soon, take care',
  ];

  it('answers the turn after the one a question matches, in a long record', async () => {
    const talk = await newAccount(t.app);
    await createEntity(talk.req, { name: 'Daniel', type: 'person', observations: turns });
    const answer = await recall(talk, 'What is the cat called that was adopted?');
    const texts = answer.results.map((result) => result.observation);
    expect(texts[0]).toBe(turns[2]);
    expect(texts).toContain(turns[3]);
    // Lent a share of its neighbour's score and confidence: below the match it follows.
    const pickles = answer.results.find((result) => result.observation === turns[3])!;
    expect(pickles.score).toBeLessThan(answer.results[0]!.score);
    expect(pickles.confidence!).toBeLessThan(answer.results[0]!.confidence!);
  });

  it('leaves a short list of facts to what matches', async () => {
    const facts = await newAccount(t.app);
    await createEntity(facts.req, {
      name: 'Daniel',
      type: 'person',
      observations: turns.slice(0, 5),
    });
    const answer = await recall(facts, 'What is the cat called that was adopted?');
    expect(answer.results.map((result) => result.observation)).not.toContain(turns[3]);
  });

  it('keeps a neighbour to the asked range', async () => {
    const talk = await newAccount(t.app);
    const daniel = await createEntity(talk.req, {
      name: 'Daniel',
      type: 'person',
      observations: turns.slice(0, 3),
    });
    const added = await talk.req({
      method: 'POST',
      url: `/api/entities/${daniel.id}/observations`,
      payload: {
        observations: [{ content: turns[3], validFrom: '2020-01-01' }, ...turns.slice(4)],
      },
    });
    expect(added.statusCode, added.body).toBe(201);
    const question = 'What is the cat called that was adopted?';
    const texts = async (extra: string) =>
      (await recall(talk, question, extra)).results.map((result) => result.observation);
    expect(await texts('')).toContain(turns[3]);
    const since = await texts('&since=2024-01-01');
    expect(since).toContain(turns[2]);
    expect(since).not.toContain(turns[3]);
  });
});

describe('GET /api/context', () => {
  it('groups the best observations by entity with the relations among them, within the budget', async () => {
    const answer = await getJson<ContextAnswer>(
      memory.req,
      `/api/context?q=${encodeURIComponent('Maya job at Northwind, a logistics company')}`,
    );
    expect(answer.chars).toBe(answer.context.length);
    expect(answer.chars).toBeLessThanOrEqual(4000);
    expect(answer.entities.map((entity) => entity.name)).toEqual(
      expect.arrayContaining(['Maya', 'Northwind']),
    );
    expect(answer.relations).toContainEqual({
      from: 'Maya',
      to: 'Northwind',
      relationType: 'works_at',
    });
    expect(answer.context).toContain('Maya (person)');
    expect(answer.context).toContain('- Maya works_at Northwind');
  });

  it('cuts to maxChars', async () => {
    const answer = await getJson<ContextAnswer>(
      memory.req,
      `/api/context?q=${encodeURIComponent('Maya job Northwind morning')}&maxChars=200`,
    );
    expect(answer.context.length).toBeLessThanOrEqual(200);
    expect(answer.chars).toBe(answer.context.length);
    expect(answer.entities.length).toBeGreaterThan(0);
    await expectValidationError(
      await memory.req({ method: 'GET', url: '/api/context?q=job&maxChars=20001' }),
      ['query.maxChars'],
    );
  });
});

describe.each(['modern', 'legacy'] as const)('MCP recall and get_context (%s era)', (era) => {
  it('answer the same shape as REST, with a readable text', async () => {
    const client = await connectEra(era, baseUrl, apiKey);
    try {
      const answer = await callTool<RecallAnswer>(client, 'recall', {
        query: 'When did Maya start her new job?',
        limit: 3,
      });
      expect(answer.results.length).toBeLessThanOrEqual(3);
      expect(answer.results[0]?.entityName).toBe('Maya');
      const raw = (await client.callTool({
        name: 'recall',
        arguments: { query: 'When did Maya start her new job?', entityTypes: ['person'] },
      })) as { content: { type: string; text: string }[] };
      // No fact date was given: the line says when it was noted.
      expect(raw.content[0]!.text).toMatch(/^1\. \[Maya \(person\), noted \d{4}-\d{2}-\d{2}\] /);

      const context = await callTool<ContextAnswer>(client, 'get_context', {
        query: 'Maya Northwind',
        maxChars: 500,
      });
      expect(context.chars).toBeLessThanOrEqual(500);
      expect(context.context).toContain('Maya (person)');
    } finally {
      await client.close();
    }
  });
});
