import type { WebhookDelivery } from '@engram/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accountIdOf,
  as,
  createTestApp,
  manualClock,
  setPlan,
  signUp,
  type TestApp,
} from '../../test/harness.js';
import { eventually } from '../../test/mcp-client.js';
import { Receiver } from '../../test/webhook-receiver.js';
import { verifySignature } from './webhook-signature.js';

const clock = manualClock();
let t: TestApp;
let receiver: Receiver;

beforeAll(async () => {
  t = await createTestApp(
    { ALLOW_PRIVATE_NETWORK_TARGETS: 'true' },
    { now: clock.now, webhooks: { manual: true, retryBaseMs: 1_000, retryMaxMs: 4_000 } },
  );
  receiver = await new Receiver().start();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

type Call = ReturnType<typeof as>;

async function account(plan = 'pro') {
  const { token, user } = await signUp(t.app);
  await setPlan(t, user.id, plan);
  return { call: as(t.app, token), user, accountId: await accountIdOf(t, user.id) };
}

async function addEndpoint(call: Call, body: Record<string, unknown> = {}) {
  const response = await call({
    method: 'POST',
    url: '/api/webhooks',
    payload: { url: receiver.url, events: ['*'], ...body },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ id: string; secret: string; events: string[] }>();
}

async function createEntity(call: Call, name: string, headers: Record<string, string> = {}) {
  const response = await call({
    method: 'POST',
    url: '/api/entities',
    headers,
    payload: { name, type: 'person', observations: [`${name} exists`] },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ id: string }>();
}

async function deliveries(call: Call, id: string) {
  const response = await call({ method: 'GET', url: `/api/webhooks/${id}/deliveries?limit=100` });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ deliveries: WebhookDelivery[] }>().deliveries;
}

const drain = () => t.runtime.webhooks.dispatcher.drain();
const reset = () => {
  receiver.received.length = 0;
  receiver.answer = () => 200;
};

describe('/api/webhooks', () => {
  it('creates, lists, changes and deletes; the secret is shown once', async () => {
    const { call, accountId } = await account();
    const holds = () =>
      t.database.db
        .selectFrom('change_log_holds')
        .select('reader')
        .where('account_id', '=', accountId)
        .execute();
    const created = await addEndpoint(call, {
      events: ['entity_created', 'entity_created', 'relation_created'],
      description: 'search index',
    });
    expect(created.secret).toMatch(/^whsec_/);
    expect(created.events).toEqual(['entity_created', 'relation_created']);
    const listed = (await call({ method: 'GET', url: '/api/webhooks' })).json<{
      webhooks: Record<string, unknown>[];
    }>().webhooks;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({
      id: created.id,
      url: receiver.url,
      description: 'search index',
      space: null,
      enabled: true,
      disabledReason: null,
    });
    expect(listed[0]).not.toHaveProperty('secret');

    const patched = await call({
      method: 'PATCH',
      url: `/api/webhooks/${created.id}`,
      payload: { events: ['*'], description: null, enabled: false },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({ events: ['*'], description: null, enabled: false });
    // A disabled endpoint keeps nothing of the change log from compaction.
    expect(await holds()).toEqual([]);
    await call({ method: 'PATCH', url: `/api/webhooks/${created.id}`, payload: { enabled: true } });
    expect(await holds()).toEqual([{ reader: `webhook:${created.id}` }]);

    expect((await call({ method: 'DELETE', url: `/api/webhooks/${created.id}` })).statusCode).toBe(
      204,
    );
    expect((await call({ method: 'GET', url: `/api/webhooks/${created.id}` })).statusCode).toBe(
      404,
    );
    expect(await holds()).toEqual([]);
  });

  it('refuses bad input with the field, and nothing is made', async () => {
    const { call } = await account();
    const cases: [Record<string, unknown>, string][] = [
      [{ url: 'not a url', events: ['*'] }, 'body.url'],
      [{ url: receiver.url, events: [] }, 'body.events'],
      [{ url: receiver.url, events: ['entity_exploded'] }, 'body.events.0'],
      [{ url: receiver.url, events: '*' }, 'body.events'],
      [{ url: 'ftp://example.com/hook', events: ['*'] }, 'body.url'],
      [{ url: 'https://user:pw@example.com/hook', events: ['*'] }, 'body.url'],
      [{ url: `https://example.com/${'a'.repeat(2100)}`, events: ['*'] }, 'body.url'],
      [{ url: receiver.url, events: ['*'], space: 'Not A Slug' }, 'body.space'],
    ];
    for (const [payload, field] of cases) {
      const response = await call({ method: 'POST', url: '/api/webhooks', payload });
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(
        response.json<{ details: { field: string }[] }>().details.map((d) => d.field),
      ).toContain(field);
    }
    const unknownSpace = await call({
      method: 'POST',
      url: '/api/webhooks',
      payload: { url: receiver.url, events: ['*'], space: 'nowhere' },
    });
    expect(unknownSpace.statusCode).toBe(404);
    expect((await call({ method: 'GET', url: '/api/webhooks' })).json()).toEqual({ webhooks: [] });
  });

  it('holds to the plan: none on Free, the catalog’s number on paid plans', async () => {
    const free = await account('free');
    const refused = await free.call({
      method: 'POST',
      url: '/api/webhooks',
      payload: { url: receiver.url, events: ['*'] },
    });
    expect(refused.statusCode).toBe(402);
    expect(refused.json<{ error: string }>().error).toBe(
      'Your Free plan does not include webhook endpoints; upgrade to add one',
    );

    const starter = await account('starter');
    const made = await Promise.all(
      Array.from({ length: 7 }, () =>
        starter.call({
          method: 'POST',
          url: '/api/webhooks',
          payload: { url: receiver.url, events: ['*'] },
        }),
      ),
    );
    expect(made.filter((r) => r.statusCode === 201)).toHaveLength(5);
    expect(made.filter((r) => r.statusCode === 402)).toHaveLength(2);
    const summary = await starter.call({ method: 'GET', url: '/api/analytics' });
    expect(summary.json()).toMatchObject({ webhookCount: 5, plan: { limits: { webhooks: 5 } } });
  });

  it('keeps only the endpoints a lower plan covers: the oldest deliver, the rest are off', async () => {
    reset();
    const { call, user } = await account('pro');
    const made = [];
    for (let i = 0; i < 6; i += 1)
      made.push(await addEndpoint(call, { events: ['entity_created'] }));
    await setPlan(t, user.id, 'starter');
    await createEntity(call, 'After the downgrade');
    await drain();
    expect(receiver.received).toHaveLength(5);
    const sixth = (await call({ method: 'GET', url: `/api/webhooks/${made[5]!.id}` })).json<{
      enabled: boolean;
      disabledReason: string;
    }>();
    expect(sixth).toEqual(
      expect.objectContaining({
        enabled: false,
        disabledReason:
          'Your Starter plan includes 5 webhook endpoints and this one is newer than those. Upgrade, or delete another endpoint, then enable it.',
      }),
    );
    const enable = await call({
      method: 'PATCH',
      url: `/api/webhooks/${made[5]!.id}`,
      payload: { enabled: true },
    });
    expect(enable.statusCode).toBe(402);
    await call({ method: 'DELETE', url: `/api/webhooks/${made[0]!.id}` });
    const again = await call({
      method: 'PATCH',
      url: `/api/webhooks/${made[5]!.id}`,
      payload: { enabled: true },
    });
    expect(again.statusCode, again.body).toBe(200);

    await setPlan(t, user.id, 'free');
    await createEntity(call, 'On Free');
    await drain();
    const [first] = (await call({ method: 'GET', url: '/api/webhooks' })).json<{
      webhooks: { enabled: boolean; disabledReason: string }[];
    }>().webhooks;
    expect(first).toMatchObject({
      enabled: false,
      disabledReason: 'Your Free plan does not include webhook endpoints. Upgrade, then enable it.',
    });
    expect(receiver.received).toHaveLength(5);
  });

  it('keeps only the endpoints a lower plan covers: the oldest deliver, the rest are off', async () => {
    reset();
    const { call, user } = await account('pro');
    const made = [];
    for (let i = 0; i < 6; i += 1)
      made.push(await addEndpoint(call, { events: ['entity_created'] }));
    await setPlan(t, user.id, 'starter');
    await createEntity(call, 'After the downgrade');
    await drain();
    expect(receiver.received).toHaveLength(5);
    const sixth = (await call({ method: 'GET', url: `/api/webhooks/${made[5]!.id}` })).json<{
      enabled: boolean;
      disabledReason: string;
    }>();
    expect(sixth).toEqual(
      expect.objectContaining({
        enabled: false,
        disabledReason:
          'Your Starter plan includes 5 webhook endpoints and this one is newer than those. Upgrade, or delete another endpoint, then enable it.',
      }),
    );
    const enable = await call({
      method: 'PATCH',
      url: `/api/webhooks/${made[5]!.id}`,
      payload: { enabled: true },
    });
    expect(enable.statusCode).toBe(402);
    await call({ method: 'DELETE', url: `/api/webhooks/${made[0]!.id}` });
    const again = await call({
      method: 'PATCH',
      url: `/api/webhooks/${made[5]!.id}`,
      payload: { enabled: true },
    });
    expect(again.statusCode, again.body).toBe(200);

    await setPlan(t, user.id, 'free');
    await createEntity(call, 'On Free');
    await drain();
    const [first] = (await call({ method: 'GET', url: '/api/webhooks' })).json<{
      webhooks: { enabled: boolean; disabledReason: string }[];
    }>().webhooks;
    expect(first).toMatchObject({
      enabled: false,
      disabledReason: 'Your Free plan does not include webhook endpoints. Upgrade, then enable it.',
    });
    expect(receiver.received).toHaveLength(5);
  });

  it('is invisible to other accounts and refused to scoped keys', async () => {
    const owner = await account();
    const other = await account();
    const { id } = await addEndpoint(owner.call);
    for (const [method, url] of [
      ['GET', `/api/webhooks/${id}`],
      ['PATCH', `/api/webhooks/${id}`],
      ['DELETE', `/api/webhooks/${id}`],
      ['POST', `/api/webhooks/${id}/test`],
      ['POST', `/api/webhooks/${id}/rotate-secret`],
      ['GET', `/api/webhooks/${id}/deliveries`],
      ['POST', `/api/webhooks/${id}/deliveries/${id}/redeliver`],
      ['GET', '/api/webhooks/not-a-uuid'],
    ] as const) {
      const response = await other.call({
        method,
        url,
        ...(method === 'PATCH' ? { payload: { enabled: false } } : {}),
      });
      expect(response.statusCode, `${method} ${url}`).toBe(404);
    }
    const key = await owner.call({
      method: 'POST',
      url: '/api/keys',
      payload: { name: 'reader', permissions: ['spaces:*:write'] },
    });
    const scoped = as(t.app, key.json<{ apiKey: string }>().apiKey);
    const response = await scoped({ method: 'GET', url: '/api/webhooks' });
    expect(response.statusCode).toBe(403);
    expect(response.json<{ error: string }>().error).toBe(
      'This API key lacks full access to the account',
    );
  });
});

describe('delivery', () => {
  it('sends every change after the endpoint was made, signed, in order', async () => {
    reset();
    const { call, accountId } = await account();
    await createEntity(call, 'Before');
    const { id, secret } = await addEndpoint(call);
    const alice = await createEntity(call, 'Alice');
    const bob = await createEntity(call, 'Bob');
    await call({
      method: 'POST',
      url: '/api/relations',
      payload: { fromEntityId: alice.id, toEntityId: bob.id, type: 'knows' },
    });
    await call({
      method: 'POST',
      url: `/api/entities/${alice.id}/observations`,
      payload: { observations: ['likes tea'] },
    });
    await drain();

    expect(receiver.types()).toEqual([
      'entity_created',
      'entity_created',
      'relation_created',
      'observation_added',
    ]);
    const seqs = receiver.received.map((r) => Number(r.event.id.split('_').at(-1)));
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    for (const { headers, body, event } of receiver.received) {
      expect(verifySignature(headers['engram-signature']!, body, secret, clock.now())).toBe(true);
      expect(verifySignature(headers['engram-signature']!, body, 'whsec_wrong', clock.now())).toBe(
        false,
      );
      expect(headers['engram-event']).toBe(event.type);
      expect(event).toMatchObject({ accountId, space: 'default' });
      expect(new Date(event.createdAt).toString()).not.toBe('Invalid Date');
    }
    expect(receiver.received[0]!.event.data).toMatchObject({ name: 'Alice', type: 'person' });

    const log = await deliveries(call, id);
    expect(log).toHaveLength(4);
    expect(
      log.every((d) => d.status === 'succeeded' && d.statusCode === 200 && d.attempt === 1),
    ).toBe(true);
    // Newest first.
    expect(log[0]!.seq! > log[3]!.seq!).toBe(true);

    // Nothing is sent twice.
    await drain();
    expect(receiver.received).toHaveLength(4);
  });

  it('hears only its events and its space', async () => {
    reset();
    const { call } = await account();
    await call({ method: 'POST', url: '/api/spaces', payload: { name: 'Work', slug: 'work' } });
    await addEndpoint(call, { events: ['entity_created'], space: 'work' });
    await createEntity(call, 'Home thing');
    await createEntity(call, 'Work thing', { 'x-engram-space': 'work' });
    await drain();
    expect(receiver.received.map((r) => [r.event.type, r.event.space])).toEqual([
      ['entity_created', 'work'],
    ]);
  });

  it('retries 5xx with backoff, keeping order, then succeeds', async () => {
    reset();
    const { call } = await account();
    const { id } = await addEndpoint(call);
    let failures = 2;
    receiver.answer = () => (failures-- > 0 ? 503 : 200);
    await createEntity(call, 'Carol');
    await drain();
    // One attempt; the next waits for its retry time, and nothing after it is sent.
    expect(receiver.received).toHaveLength(1);
    const [head] = await deliveries(call, id);
    expect(head).toMatchObject({ status: 'retrying', statusCode: 503, attempt: 1 });
    expect(head!.responseExcerpt).toBe('receiver says no');
    expect(Date.parse(head!.nextRetryAt!)).toBeGreaterThan(clock.now().getTime());
    const listed = await call({ method: 'GET', url: `/api/webhooks/${id}` });
    expect(listed.json<{ failingSince: string | null }>().failingSince).not.toBeNull();
    expect(listed.json<{ nextRetryAt: string }>().nextRetryAt).toBe(head!.nextRetryAt);

    for (let i = 0; i < 2; i += 1) {
      clock.advanceMs(5_000);
      await drain();
    }
    await createEntity(call, 'Carl');
    await drain();
    expect(receiver.received.map((r) => (r.event.data as { name: string }).name)).toEqual([
      'Carol',
      'Carol',
      'Carol',
      'Carl',
    ]);
    const log = await deliveries(call, id);
    expect(log.map((d) => [d.status, d.attempt])).toEqual([
      ['succeeded', 1],
      ['succeeded', 3],
    ]);
    expect((await call({ method: 'GET', url: `/api/webhooks/${id}` })).json()).toMatchObject({
      failingSince: null,
    });
  });

  it('moves past a 4xx without retrying it', async () => {
    reset();
    const { call } = await account();
    const { id } = await addEndpoint(call, { events: ['entity_created'] });
    receiver.answer = (event) => ((event.data as { name: string }).name === 'Bad' ? 410 : 200);
    await createEntity(call, 'Bad');
    await createEntity(call, 'Good');
    await drain();
    expect(receiver.received.map((r) => (r.event.data as { name: string }).name)).toEqual([
      'Bad',
      'Good',
    ]);
    const log = await deliveries(call, id);
    expect(log.map((d) => [d.status, d.statusCode])).toEqual([
      ['succeeded', 200],
      ['failed', 410],
    ]);
  });

  it('disables an endpoint that fails for a day, says why, and resumes when enabled', async () => {
    reset();
    const { call, accountId } = await account();
    const { id } = await addEndpoint(call);
    receiver.answer = () => 500;
    await createEntity(call, 'Dave');
    await drain();
    clock.advanceMs(25 * 60 * 60_000);
    await drain();
    const disabled = (await call({ method: 'GET', url: `/api/webhooks/${id}` })).json<{
      enabled: boolean;
      disabledReason: string;
    }>();
    expect(disabled.enabled).toBe(false);
    expect(disabled.disabledReason).toBe(
      'Disabled after failing for 24 hours. Last error: HTTP 500',
    );
    const holds = await t.database.db
      .selectFrom('change_log_holds')
      .selectAll()
      .where('account_id', '=', accountId)
      .execute();
    expect(holds).toEqual([]);

    // Nothing is sent while it is off; enabled again, it resumes where it stopped.
    receiver.answer = () => 200;
    const before = receiver.received.length;
    await createEntity(call, 'Eve');
    await drain();
    expect(receiver.received).toHaveLength(before);
    await call({ method: 'PATCH', url: `/api/webhooks/${id}`, payload: { enabled: true } });
    await drain();
    const names = receiver.received
      .slice(before)
      .filter((r) => r.event.type === 'entity_created')
      .map((r) => (r.event.data as { name: string }).name);
    expect(names).toEqual(['Dave', 'Eve']);
  });

  it('sends a test ping now, redelivers an event with its id, and rotates the secret', async () => {
    reset();
    const { call } = await account();
    const { id, secret } = await addEndpoint(call, { events: ['entity_created'] });
    const test = await call({ method: 'POST', url: `/api/webhooks/${id}/test` });
    expect(test.statusCode, test.body).toBe(200);
    expect(test.json()).toMatchObject({
      event: 'ping',
      status: 'succeeded',
      statusCode: 200,
      manual: true,
    });
    expect(receiver.received[0]!.event).toMatchObject({ type: 'ping', data: { webhookId: id } });

    await createEntity(call, 'Frank');
    await drain();
    const [sent] = (await deliveries(call, id)).filter((d) => d.event === 'entity_created');
    const again = await call({
      method: 'POST',
      url: `/api/webhooks/${id}/deliveries/${sent!.id}/redeliver`,
    });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toMatchObject({
      eventId: sent!.eventId,
      manual: true,
      status: 'succeeded',
    });
    expect(receiver.received.at(-1)!.event.id).toBe(sent!.eventId);
    expect(receiver.received.at(-2)!.body).toBe(receiver.received.at(-1)!.body);

    const rotated = await call({ method: 'POST', url: `/api/webhooks/${id}/rotate-secret` });
    const { secret: next, previousSecretExpiresAt } = rotated.json<{
      secret: string;
      previousSecretExpiresAt: string;
    }>();
    expect(next).not.toBe(secret);
    expect(Date.parse(previousSecretExpiresAt) - clock.now().getTime()).toBe(24 * 60 * 60_000);
    await call({ method: 'POST', url: `/api/webhooks/${id}/test` });
    const { headers, body } = receiver.received.at(-1)!;
    expect(headers['engram-signature']!.match(/v1=/g)).toHaveLength(2);
    expect(verifySignature(headers['engram-signature']!, body, next, clock.now())).toBe(true);
    expect(verifySignature(headers['engram-signature']!, body, secret, clock.now())).toBe(true);
  });

  it('a hanging endpoint holds up only itself', async () => {
    reset();
    const slow = await new Receiver().start();
    let release = () => {};
    slow.hold = new Promise<void>((resolve) => (release = resolve));
    try {
      const hanging = await account();
      const quick = await account();
      const { dispatcher } = t.runtime.webhooks;
      // The hanging endpoint's pass starts first and waits on its answer…
      await addEndpoint(hanging.call, { url: slow.url });
      await createEntity(hanging.call, 'Stuck');
      await dispatcher.poll();
      // …while another endpoint's events still go out.
      await addEndpoint(quick.call);
      await createEntity(quick.call, 'Through');
      await dispatcher.poll();
      await eventually(() => receiver.received.length > 0, 5_000, 'the quick endpoint');
      expect(slow.received).toHaveLength(0);
      release();
      await drain();
      expect(slow.received).toHaveLength(1);
    } finally {
      release();
      await slow.close();
    }
  });

  it('lets an account have only a few test sends in flight', async () => {
    const slow = await new Receiver().start();
    let release = () => {};
    slow.hold = new Promise<void>((resolve) => (release = resolve));
    try {
      const { call } = await account();
      const { id } = await addEndpoint(call, { url: slow.url });
      const sends = Array.from({ length: 6 }, () =>
        call({ method: 'POST', url: `/api/webhooks/${id}/test` }),
      );
      await eventually(() => slow.waiting === 5, 5_000, 'five sends waiting');
      release();
      const statuses = (await Promise.all(sends)).map((r) => r.statusCode).sort();
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    } finally {
      release();
      await slow.close();
    }
  });

  it('counts its deliveries log toward the account’s storage', async () => {
    const { call, accountId } = await account();
    const stored = async () =>
      Number(
        (
          await t.database.db
            .selectFrom('accounts')
            .select('stored_bytes')
            .where('id', '=', accountId)
            .executeTakeFirstOrThrow()
        ).stored_bytes,
      );
    const { id } = await addEndpoint(call);
    const before = await stored();
    for (let i = 0; i < 3; i += 1) await call({ method: 'POST', url: `/api/webhooks/${id}/test` });
    const grown = (await stored()) - before;
    expect(grown).toBeGreaterThanOrEqual(3 * 200);
    await call({ method: 'DELETE', url: `/api/webhooks/${id}` });
    expect(await stored()).toBe(before);
  });

  it('keeps the log paged by cursor', async () => {
    reset();
    const { call } = await account();
    const { id } = await addEndpoint(call);
    for (let i = 0; i < 3; i += 1) await call({ method: 'POST', url: `/api/webhooks/${id}/test` });
    const first = await call({ method: 'GET', url: `/api/webhooks/${id}/deliveries?limit=2` });
    const page = first.json<{ deliveries: WebhookDelivery[]; nextCursor: string }>();
    expect(page.deliveries).toHaveLength(2);
    const second = await call({
      method: 'GET',
      url: `/api/webhooks/${id}/deliveries?limit=2&cursor=${encodeURIComponent(page.nextCursor)}`,
    });
    expect(second.json<{ deliveries: unknown[]; nextCursor: null }>()).toMatchObject({
      nextCursor: null,
    });
    expect(second.json<{ deliveries: unknown[] }>().deliveries).toHaveLength(1);
    const forged = await call({
      method: 'GET',
      url: `/api/webhooks/${id}/deliveries?cursor=garbage`,
    });
    expect(forged.statusCode).toBe(400);
  });
});

describe('without ALLOW_PRIVATE_NETWORK_TARGETS', () => {
  let strict: TestApp;
  beforeAll(async () => {
    strict = await createTestApp({}, { webhooks: { manual: true } });
  });
  afterAll(() => strict.close());

  it('refuses http and private addresses, and checks a name when it sends', async () => {
    const { token, user } = await signUp(strict.app);
    await setPlan(strict, user.id, 'pro');
    const call = as(strict.app, token);
    for (const url of [
      receiver.url,
      'https://127.0.0.1/hook',
      'https://[::1]/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://10.1.2.3/hook',
      'https://[::ffff:192.168.0.1]/hook',
    ]) {
      const response = await call({
        method: 'POST',
        url: '/api/webhooks',
        payload: { url, events: ['*'] },
      });
      expect(response.statusCode, url).toBe(400);
      expect(response.json<{ details: { field: string }[] }>().details[0]!.field).toBe('body.url');
    }
    // A name is resolved when it is sent to: `localhost` is loopback, refused then.
    const created = await call({
      method: 'POST',
      url: '/api/webhooks',
      payload: { url: 'https://localhost:1/hook', events: ['*'] },
    });
    expect(created.statusCode, created.body).toBe(201);
    const { id } = created.json<{ id: string }>();
    const test = await call({ method: 'POST', url: `/api/webhooks/${id}/test` });
    expect(test.json()).toMatchObject({
      status: 'failed',
      statusCode: null,
      error: 'Host resolves to a private, loopback or link-local address',
    });
  });
});
