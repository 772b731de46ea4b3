import type { RecallAnswer } from '@engram/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startEmbeddingStandIn,
  type EmbeddingStandIn,
} from '../../test/fakes/embedding-stand-in.js';
import { createEntity, getJson, newAccount, type Account } from '../../test/graph-fixtures.js';
import { createTestApp, type TestApp } from '../../test/harness.js';

// Recall with an embedding endpoint (a local stand-in, reached by the real
// HTTP client): what shares no word with the question is found by meaning.

let standIn: EmbeddingStandIn;
let t: TestApp;
let memory: Account;

beforeAll(async () => {
  standIn = await startEmbeddingStandIn(64);
  t = await createTestApp({ EMBEDDINGS_URL: standIn.url, EMBEDDINGS_MODEL: 'stand-in' });
  memory = await newAccount(t.app);
  await createEntity(memory.req, {
    name: 'Leo',
    type: 'person',
    observations: ['Enjoys long walks in the mountains', 'Works at the bakery on Main Street'],
  });
  await createEntity(memory.req, {
    name: 'Ines',
    type: 'person',
    observations: ['Collects vinyl records', 'Hiking every Sunday with her puppy'],
  });
  for (let run = 0; run < 10 && (await t.runtime.embeddings.indexer!.runOnce()).more; run += 1);
});

afterAll(async () => {
  await t?.close();
  await standIn?.close();
});

const recall = (query: string) =>
  getJson<RecallAnswer>(memory.req, `/api/recall?q=${encodeURIComponent(query)}`);

describe('recall with an embedding endpoint', () => {
  it('finds an observation that shares no word with the question, beside the lexical matches', async () => {
    const answer = await recall('who goes hiking?');
    const texts = answer.results.map((result) => result.observation);
    expect(texts).toContain('Hiking every Sunday with her puppy');
    expect(texts).toContain('Enjoys long walks in the mountains');
    expect(texts).not.toContain('Collects vinyl records');
  });

  it('ranks lexically when the endpoint fails', async () => {
    standIn.behaviour.failWith = 503;
    try {
      const answer = await recall('who goes hiking on Sunday?');
      expect(answer.results.map((result) => result.observation)).toEqual([
        'Hiking every Sunday with her puppy',
      ]);
    } finally {
      standIn.reset();
    }
  });
});
