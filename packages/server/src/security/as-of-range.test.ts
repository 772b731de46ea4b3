import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, createTestApp, signUp, type TestApp } from '../test/harness.js';
import { callToolError, connectMcp } from '../test/mcp-client.js';

// `asOf` outside the times both databases hold (issue 56, item 6): a 400
// naming the field on REST and a tool error on MCP, never a 500.

let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await createTestApp();
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => t.close());

const OUT_OF_RANGE = [
  '0000-01-01T00:00:00Z',
  '0000-12-31',
  '0001-01-01T00:00:00+01:00',
  '9999-12-31T23:00:00-05:00',
];

describe('an asOf out of range', () => {
  it('is a 400 naming query.asOf on every REST read, and changes nothing', async () => {
    const { token } = await signUp(t.app);
    const call = as(t.app, token);
    await call({ method: 'POST', url: '/api/entities', payload: { name: 'Ada', type: 'person' } });
    for (const asOf of OUT_OF_RANGE) {
      for (const path of ['/api/entities', '/api/relations', '/api/relations/graph/data']) {
        const response = await call({
          method: 'GET',
          url: `${path}?asOf=${encodeURIComponent(asOf)}`,
        });
        expect(response.statusCode, `${path} ${asOf}`).toBe(400);
        expect(response.json()).toMatchObject({
          code: 'VALIDATION_ERROR',
          details: [{ field: 'query.asOf' }],
        });
      }
      const changes = await call({
        method: 'GET',
        url: `/api/changes?until=${encodeURIComponent(asOf)}`,
      });
      expect(changes.statusCode, `changes ${asOf}`).toBe(400);
    }
    // The earliest and latest times that exist are read as usual.
    for (const asOf of ['0001-01-01T00:00:00Z', '9999-12-31T23:59:59Z']) {
      const response = await call({ method: 'GET', url: `/api/entities?asOf=${asOf}` });
      expect(response.statusCode, asOf).toBeLessThan(500);
    }
  });

  it('is a tool error naming asOf on MCP read_graph, search_nodes and open_nodes', async () => {
    const { user } = await signUp(t.app);
    const client = await connectMcp(base, user.apiKey);
    try {
      for (const [tool, args] of [
        ['read_graph', {}],
        ['search_nodes', { query: 'Ada' }],
        ['open_nodes', { names: ['Ada'] }],
      ] as const) {
        const text = await callToolError(client, tool, { ...args, asOf: OUT_OF_RANGE[0] });
        expect(text, tool).toMatch(/asOf/);
        expect(text, tool).not.toMatch(/out of range|internal/i);
      }
    } finally {
      await client.close();
    }
  });
});
