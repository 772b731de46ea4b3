import type { ContextAnswer, RecallAnswer } from '@engram/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEntity, getJson, newAccount, type Account } from '../../test/graph-fixtures.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { expectValidationError } from '../../test/http-assertions.js';
import { callTool, connectEra } from '../../test/mcp-client.js';
import {
  ABSTAIN_FLOOR,
  CONFIDENCE_MEMORY_MIN,
  confidenceOf,
  confidenceShift,
  unknownNames,
} from './ranking.js';

// Abstaining (issue 60): a question nothing in memory answers gets no
// results and `abstained: true`; `abstain=false` gets best-effort results,
// each with its confidence. On PGlite, and on PostgreSQL with TEST_DATABASE_URL.

let t: TestApp;
let memory: Account;
let baseUrl: string;
let apiKey: string;

beforeAll(async () => {
  t = await createTestApp();
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  memory = await newAccount(t.app);
  await createEntity(memory.req, {
    name: 'Maya',
    type: 'person',
    observations: [
      'Started a new job at Northwind as a data engineer on 3 March 2024',
      'Adopted a rescue greyhound called Pepper',
      'Signed up for a pottery class on Thursday evenings',
      'The pottery teacher said my first bowl was good',
      'Lunch with my sister was good',
      'The weather in May was good for cycling',
    ],
  });
  await createEntity(memory.req, {
    name: 'Leo',
    type: 'person',
    observations: [
      'Runs every morning before work along the canal',
      'Works at the bakery from five in the morning',
      'The new oven at the bakery is good',
      'Painted the kitchen blue over the weekend, it looks good',
      'The sourdough came out good this time',
      'A good night of sleep before the race',
    ],
  });
  await createEntity(memory.req, {
    name: 'Northwind',
    type: 'company',
    observations: [
      'A logistics company headquartered in Rotterdam',
      'Uses PostgreSQL for every service',
      'The quarterly results were good',
      'Engineering works in two-week sprints',
    ],
  });
  apiKey = (
    await memory.req({ method: 'POST', url: '/api/keys', payload: { name: 'agent' } })
  ).json<{ apiKey: string }>().apiKey;
});

afterAll(async () => {
  await t?.close();
});

const recall = (query: string, extra = '', account = memory) =>
  getJson<RecallAnswer>(account.req, `/api/recall?q=${encodeURIComponent(query)}${extra}`);
const context = (query: string, extra = '') =>
  getJson<ContextAnswer>(memory.req, `/api/context?q=${encodeURIComponent(query)}${extra}`);

const UNANSWERABLE = [
  // People and places the memory never heard of, sharing a word or two with it.
  'What did Bartholomew say about his pottery trip to Peru?',
  'Which bakery did Ximena open in Nairobi?',
  // Only words that half the memory holds.
  'Was it good?',
];

describe('recall abstains when nothing in memory answers', () => {
  it.each(UNANSWERABLE)('%s: no results, abstained, with the reason', async (question) => {
    const answer = await recall(question);
    expect(answer.results).toEqual([]);
    expect(answer.abstained).toBe(true);
    expect(answer.abstainReason).toMatch(/too weak/);
  });

  it('names what nothing in memory mentions', async () => {
    const answer = await recall('What did Bartholomew say about his pottery trip to Peru?');
    expect(answer.abstainReason).toContain('Bartholomew');
    expect(answer.abstainReason).toContain('Peru');
  });

  it('with abstain=false answers best-effort results, each with a confidence in [0, 1]', async () => {
    const answer = await recall('Was it good?', '&abstain=false');
    expect(answer.abstained).toBe(false);
    expect(answer.abstainReason).toBeNull();
    expect(answer.results.length).toBeGreaterThan(0);
    for (const result of answer.results) {
      expect(result.confidence).toBeGreaterThanOrEqual(0);
      expect(result.confidence).toBeLessThanOrEqual(1);
    }
    // Too weak to answer by default: below the floor.
    expect(answer.results[0]!.confidence).toBeLessThan(ABSTAIN_FLOOR);
  });

  it('answers an answerable question, not abstained, confident above the floor', async () => {
    for (const question of [
      'When did Maya start her new job?',
      'What class did Maya sign up for?',
      'Where does Leo work?',
      'Tell me about Northwind',
    ]) {
      const answer = await recall(question);
      expect(answer.abstained, question).toBe(false);
      expect(answer.abstainReason, question).toBeNull();
      expect(answer.results.length, question).toBeGreaterThan(0);
      expect(answer.results[0]!.confidence, question).toBeGreaterThanOrEqual(ABSTAIN_FLOOR);
      expect(answer.results[0]!.confidence, question).toBeLessThanOrEqual(1);
    }
    const answer = await recall('What class did Maya sign up for?', '&abstain=true');
    expect(answer.results[0]?.observation).toBe(
      'Signed up for a pottery class on Thursday evenings',
    );
  });

  it('answers an exact match in a new memory of one observation', async () => {
    const fresh = await newAccount(t.app);
    await createEntity(fresh.req, {
      name: 'Grace Hopper',
      type: 'person',
      observations: ['Grace Hopper invented the first compiler'],
    });
    for (const question of ['compiler', 'who invented the compiler']) {
      const answer = await recall(question, '', fresh);
      expect(answer.abstained, question).toBe(false);
      expect(
        answer.results.map((result) => result.observation),
        question,
      ).toEqual(['Grace Hopper invented the first compiler']);
    }
  });

  it('abstains on a topic a large memory never mentions, when the question names no entity', async () => {
    const large = await newAccount(t.app);
    const places = ['canal', 'harbour', 'market', 'station', 'park'];
    for (let person = 0; person < 10; person += 1) {
      await createEntity(large.req, {
        name: `Walker ${person}`,
        type: 'person',
        observations: Array.from({ length: 100 }, (_, day) =>
          day === 50 && person < 3
            ? `Bought new boots on day ${day}`
            : `Day ${day}: walked ${day % 9} km to the ${places[(person + day) % 5]}`,
        ),
      });
    }
    await createEntity(large.req, {
      name: 'Priya',
      type: 'person',
      observations: ['Her veterinarian recommended a new diet for the cat'],
    });
    const absent = await recall('Which telescope was bought for stargazing?', '', large);
    expect(absent).toMatchObject({ results: [], abstained: true });
    const bestEffort = await recall(
      'Which telescope was bought for stargazing?',
      '&abstain=false',
      large,
    );
    expect(bestEffort.results[0]!.confidence).toBeLessThan(ABSTAIN_FLOOR);
    // A question about what the memory holds: answered.
    const held = await recall('What diet did the veterinarian recommend?', '', large);
    expect(held.abstained).toBe(false);
    expect(held.results[0]?.observation).toContain('new diet');
  });

  it('does not abstain on an empty memory: nothing to answer from', async () => {
    const empty = await newAccount(t.app);
    const answer = await recall('Was it good?', '', empty);
    expect(answer).toMatchObject({ results: [], abstained: false, abstainReason: null });
  });

  it('empties get_context when it abstains; abstain=false fills it', async () => {
    const abstained = await context('What did Bartholomew say about his pottery trip to Peru?');
    expect(abstained).toMatchObject({
      context: '',
      entities: [],
      relations: [],
      chars: 0,
      abstained: true,
    });
    expect(abstained.abstainReason).toMatch(/too weak/);
    const anyway = await context('Was it good?', '&abstain=false');
    expect(anyway.abstained).toBe(false);
    expect(anyway.context.length).toBeGreaterThan(0);
    const answered = await context('Maya pottery class');
    expect(answered.abstained).toBe(false);
    expect(answered.context).toContain('pottery class');
  });

  it('documents abstain in the OpenAPI description', () => {
    type Operation = { parameters?: { name: string; in: string }[] };
    const paths = (t.app.swagger() as { paths: Record<string, Record<string, Operation>> }).paths;
    for (const path of ['/api/recall', '/api/context']) {
      const names = (paths[path]?.get?.parameters ?? []).map((parameter) => parameter.name);
      expect(names, path).toContain('abstain');
    }
  });

  it('refuses abstain other than true or false, naming the field', async () => {
    for (const url of [
      '/api/recall?q=good&abstain=maybe',
      '/api/recall?q=good&abstain=1',
      '/api/context?q=good&abstain=maybe',
    ]) {
      await expectValidationError(await memory.req({ method: 'GET', url }), ['query.abstain']);
    }
  });
});

describe.each(['modern', 'legacy'] as const)(
  'MCP recall and get_context abstain (%s era)',
  (era) => {
    it('abstain by default, answer best-effort with abstain: false', async () => {
      const client = await connectEra(era, baseUrl, apiKey);
      try {
        const none = await callTool<RecallAnswer>(client, 'recall', { query: 'Was it good?' });
        expect(none).toMatchObject({ results: [], abstained: true });
        const raw = (await client.callTool({
          name: 'recall',
          arguments: { query: 'Was it good?' },
        })) as { content: { type: string; text: string }[] };
        expect(raw.content[0]!.text).toMatch(
          /^Nothing in memory answers "Was it good\?": the best matches were too weak/,
        );

        const anyway = await callTool<RecallAnswer>(client, 'recall', {
          query: 'Was it good?',
          abstain: false,
        });
        expect(anyway.abstained).toBe(false);
        expect(anyway.results.length).toBeGreaterThan(0);
        expect(anyway.results.every((r) => r.confidence! >= 0 && r.confidence! <= 1)).toBe(true);

        const answered = await callTool<RecallAnswer>(client, 'recall', {
          query: 'What class did Maya sign up for?',
        });
        expect(answered.abstained).toBe(false);
        expect(answered.results[0]?.observation).toContain('pottery class');

        const empty = await callTool<ContextAnswer>(client, 'get_context', {
          query: 'Which bakery did Ximena open in Nairobi?',
        });
        expect(empty).toMatchObject({ context: '', entities: [], abstained: true });
        const filled = await callTool<ContextAnswer>(client, 'get_context', {
          query: 'Was it good?',
          abstain: false,
        });
        expect(filled.abstained).toBe(false);
        expect(filled.context).toContain('good');

        const refused = (await client.callTool({
          name: 'recall',
          arguments: { query: 'good', abstain: 'maybe' },
        })) as { isError?: boolean; content: { text: string }[] };
        expect(refused.isError).toBe(true);
        expect(refused.content[0]!.text).toContain('abstain');
      } finally {
        await client.close();
      }
    });
  },
);

describe('confidence', () => {
  // A memory of CONFIDENCE_MEMORY_MIN observations or more: weights are taken as they are.
  const question = { totalWeight: 10, maxWeight: 5, terms: 2, observations: CONFIDENCE_MEMORY_MIN };
  it('is the product of coverage, rarity and mass, in [0, 1]', () => {
    expect(confidenceOf({ coverage: 1, rarest: 5 }, question)).toBe(1);
    expect(confidenceOf({ coverage: 0, rarest: 5 }, question)).toBe(0);
    // Half the weight (5 = 2/3 of 1.5 × 5), the rarest word of weight 2.5.
    expect(confidenceOf({ coverage: 0.5, rarest: 2.5 }, question)).toBeCloseTo(
      0.5 * 0.5 * (5 / 7.5),
      3,
    );
    expect(confidenceOf({ coverage: 2, rarest: 50 }, question)).toBe(1);
    expect(
      confidenceOf({ coverage: 1, rarest: 5 }, { ...question, totalWeight: 0, maxWeight: 0 }),
    ).toBe(0);
  });

  it('weighs a small memory as a memory of CONFIDENCE_MEMORY_MIN observations', () => {
    // "compiler", held by the one observation of a memory of one: BM25 weighs it
    // ln(2 / 1.5), a word no observation holds ln(2 / 0.5).
    const tiny = {
      totalWeight: Math.log(2 / 1.5),
      maxWeight: Math.log(4),
      terms: 1,
      observations: 1,
    };
    const exact = confidenceOf({ coverage: 1, rarest: Math.log(2 / 1.5) }, tiny);
    expect(exact).toBeGreaterThan(ABSTAIN_FLOOR);
    // As held by one of CONFIDENCE_MEMORY_MIN + 1 observations in a memory that large.
    const large = CONFIDENCE_MEMORY_MIN;
    const w = Math.log((large + 1) / 1.5);
    const same = {
      totalWeight: w,
      maxWeight: Math.log((large + 1) / 0.5),
      terms: 1,
      observations: large,
    };
    expect(exact).toBeCloseTo(confidenceOf({ coverage: 1, rarest: w }, same), 2);
    expect(confidenceShift(large)).toBe(0);
    expect(confidenceShift(100_000)).toBe(0);
  });

  it('counts a named entity as the rarest word and as a word no observation holds', () => {
    const common = confidenceOf({ coverage: 0.3, rarest: 1 }, question);
    const named = confidenceOf({ coverage: 0.3, rarest: 1, named: true }, question);
    expect(named).toBeGreaterThan(common);
    expect(named).toBeLessThanOrEqual(1);
  });

  it('finds the capitalised words no observation holds, unless an entity is called so', () => {
    const words = [
      { lexeme: 'bartholomew', matches: 0 },
      { lexeme: 'say', matches: 4 },
      { lexeme: 'peru', matches: 0 },
      { lexeme: 'march', matches: 0, dated: true },
      { lexeme: 'retain', matches: 0 },
    ];
    expect(
      unknownNames('What did Bartholomew say about Peru in March, retained?', words, []),
    ).toEqual(['Bartholomew', 'Peru']);
    expect(
      unknownNames("What did Bartholomew's team say about Peru?", words, ['Bartholomew Smith']),
    ).toEqual(['Peru']);
    // The first word is capitalised as any question's is.
    expect(unknownNames('Peru?', words, [])).toEqual([]);
  });
});
