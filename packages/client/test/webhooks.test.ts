import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signatureHeader } from '../../server/src/features/webhooks/webhook-signature.js';
import { Receiver } from '../../server/src/test/webhook-receiver.js';
import { verifyWebhook } from '../src/index.js';
import { clientFor, newAccount, startServer, type TestServer } from './server.js';

const body = '{"id":"evt_1","type":"ping","data":{}}';

describe('verifyWebhook against the server’s signer', () => {
  it('accepts the signature, refuses another body, secret or an old timestamp', async () => {
    const header = signatureHeader(body, ['whsec_new'], new Date());
    expect(await verifyWebhook(header, body, 'whsec_new')).toBe(true);
    expect(await verifyWebhook(header, new TextEncoder().encode(body), 'whsec_new')).toBe(true);
    expect(await verifyWebhook(header, `${body} `, 'whsec_new')).toBe(false);
    expect(await verifyWebhook(header, body, 'whsec_other')).toBe(false);

    const old = signatureHeader(body, ['whsec_new'], new Date(Date.now() - 301_000));
    expect(await verifyWebhook(old, body, 'whsec_new')).toBe(false);
    expect(await verifyWebhook(old, body, 'whsec_new', 600)).toBe(true);
    expect(await verifyWebhook('', body, 'whsec_new')).toBe(false);
    expect(await verifyWebhook('t=abc,v1=00', body, 'whsec_new')).toBe(false);
  });

  it('accepts either v1 while a secret rotates', async () => {
    const header = signatureHeader(body, ['whsec_new', 'whsec_old'], new Date());
    expect(header.match(/v1=/g)).toHaveLength(2);
    expect(await verifyWebhook(header, body, 'whsec_new')).toBe(true);
    expect(await verifyWebhook(header, body, 'whsec_old')).toBe(true);
    expect(await verifyWebhook(header, body, 'whsec_gone')).toBe(false);
  });
});

describe('webhooks group, end to end', () => {
  let server: TestServer;
  let receiver: Receiver;
  beforeAll(async () => {
    server = await startServer();
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    await receiver.close();
    await server.close();
  });

  const delivered = async (count: number) => {
    const end = Date.now() + 15_000;
    while (receiver.received.length < count) {
      if (Date.now() > end) throw new Error(`${receiver.received.length} of ${count} deliveries`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return receiver.received[count - 1]!;
  };

  it('creates an endpoint whose deliveries verify, before and after a rotation', async () => {
    const engram = clientFor(server, (await newAccount(server, 'starter')).apiKey);
    const hook = await engram.webhooks.create({ url: receiver.url, events: ['entity_created'] });
    expect(hook.secret).toMatch(/^whsec_/);
    expect((await engram.webhooks.list().toArray()).map((w) => w.id)).toEqual([hook.id]);

    await engram.entities.create({ name: 'Signed', type: 'note' });
    const first = await delivered(1);
    expect(first.event.type).toBe('entity_created');
    const header = first.headers['engram-signature']!;
    expect(await verifyWebhook(header, first.body, hook.secret)).toBe(true);
    expect(await verifyWebhook(header, first.body, 'whsec_wrong')).toBe(false);

    const rotated = await engram.webhooks.rotateSecret(hook.id);
    await engram.entities.create({ name: 'Signed twice', type: 'note' });
    const second = await delivered(2);
    const both = second.headers['engram-signature']!;
    expect(await verifyWebhook(both, second.body, rotated.secret)).toBe(true);
    expect(await verifyWebhook(both, second.body, hook.secret)).toBe(true);

    const deliveries = await engram.webhooks.deliveries(hook.id, { limit: 1 }).toArray();
    expect(deliveries.length).toBeGreaterThanOrEqual(2);
    expect((await engram.webhooks.update(hook.id, { enabled: false })).enabled).toBe(false);
    await engram.webhooks.delete(hook.id);
    await expect(engram.webhooks.get(hook.id)).rejects.toMatchObject({ status: 404 });
  });
});
