import { afterAll, beforeAll, expect, it } from 'vitest';
import { as, createTestApp, manualClock, signUp, type TestApp } from '../test/harness.js';
import { TestSocket } from '../test/ws-client.js';

// One clock: a change event carries the runtime clock's time, the same live
// and when replayed from the change log.

const clock = manualClock(new Date('2030-01-02T03:04:05.000Z'));
let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await createTestApp({}, { now: clock.now });
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => t.close());

it('stamps an event with the runtime clock, identically live and replayed', async () => {
  const { token, user } = await signUp(t.app);
  const live = await TestSocket.open(base, user.apiKey);
  live.send('subscribe_to_graph_changes', {});
  await live.next((m) => m.type === 'subscribed');
  await as(
    t.app,
    token,
  )({
    method: 'POST',
    url: '/api/entities',
    payload: { name: 'stamped', type: 'concept', metadata: {}, observations: [] },
  });
  const seen = await live.next((m) => m.type === 'entity_created');
  live.close();

  const replay = await TestSocket.open(base, user.apiKey);
  replay.send('subscribe_to_graph_changes', { lastSeq: 0 });
  const replayed = await replay.next((m) => m.type === 'entity_created');
  replay.close();

  expect(seen.timestamp).toBe('2030-01-02T03:04:05.000Z');
  expect(replayed.timestamp).toBe(seen.timestamp);
  expect(replayed.seq).toBe(seen.seq);
});
