import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { as, createTestApp, setPlan, signUp, type TestApp } from '../../test/harness.js';
import { eventually } from '../../test/mcp-client.js';

/** A local mail server that keeps what it is sent. */
const received: { from: string; to: string[]; body: string }[] = [];
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  onData(stream, session, callback) {
    let body = '';
    stream.on('data', (chunk: Buffer) => (body += chunk.toString()));
    stream.on('end', () => {
      received.push({
        from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
        to: session.envelope.rcptTo.map((r) => r.address),
        body,
      });
      callback();
    });
  },
});
let t: TestApp;

beforeAll(async () => {
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const { port } = smtp.server.address() as AddressInfo;
  t = await createTestApp({
    SMTP_URL: `smtp://127.0.0.1:${port}`,
    SMTP_FROM: 'Engram <engram@example.com>',
    PUBLIC_URL: 'https://engram.example.com',
  });
});
afterAll(async () => {
  await t.close();
  await new Promise<void>((resolve) => smtp.close(resolve));
});

it('mails the invitation link when SMTP is set, and still returns it', async () => {
  const owner = await signUp(t.app, { firstName: 'Olive', lastName: 'Owner' });
  await setPlan(t, owner.user.id, 'pro');
  const response = await as(
    t.app,
    owner.token,
  )({
    method: 'POST',
    url: '/api/members/invitations',
    payload: { email: 'colleague@example.com', role: 'viewer' },
  });
  expect(response.statusCode, response.body).toBe(201);
  const { url, emailed } = response.json<{ url: string; emailed: boolean }>();
  expect(emailed).toBe(true);
  expect(url).toMatch(/^https:\/\/engram\.example\.com\/invitations\/accept#token=eng_inv_/);
  await eventually(() => received.length === 1, 5_000, 'the mail');
  const [mail] = received;
  expect(mail!.from).toBe('engram@example.com');
  expect(mail!.to).toEqual(['colleague@example.com']);
  expect(mail!.body).toContain('Olive Owner invited you to join Olive Owner on Engram as Viewer');
  // The token (base64url) survives the mail's line folding once soft breaks are joined.
  const token = new URL(url).hash.replace('#token=', '');
  expect(mail!.body.replace(/=\r?\n/g, '')).toContain(token);
});
