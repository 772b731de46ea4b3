import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, signUp, type TestApp } from '../test/harness.js';
import { INITIALIZE, postMcp } from '../test/mcp-client.js';
import { TestSocket } from '../test/ws-client.js';

// Issue 31, finding 6: the Origin check took any host name starting with
// "127." for loopback, so a page on `http://127.attacker.example` or
// `http://127.0.0.1.nip.io:PORT` could drive /mcp and /ws/connect with a
// signed-in browser's credentials. Hosts are now compared exactly after
// parsing: loopback is `localhost`, `127.0.0.1` and `[::1]`, nothing else.

const open: TestApp[] = [];
const sockets: TestSocket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.close();
  await Promise.all(open.splice(0).map((t) => t.close()));
});

async function server(overrides: Parameters<typeof createTestApp>[0] = {}) {
  const t = await createTestApp(overrides);
  open.push(t);
  const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { user } = await signUp(t.app);
  return { t, base, port: new URL(base).port, apiKey: user.apiKey };
}

/** What /mcp and /ws/connect answer a request from this Origin (and Host, when given). */
async function answers(
  { t, base, apiKey }: Awaited<ReturnType<typeof server>>,
  headers: { origin?: string; host?: string },
) {
  // /mcp over the inject path when a Host is forged (fetch sends the real one).
  const mcp = headers.host
    ? (
        await t.app.inject({
          method: 'POST',
          url: '/mcp',
          headers: {
            ...headers,
            authorization: `Bearer ${apiKey}`,
            accept: 'application/json, text/event-stream',
          },
          payload: INITIALIZE,
        })
      ).statusCode
    : (await postMcp(base, apiKey, INITIALIZE, headers)).status;
  let ws: string;
  try {
    sockets.push(
      await TestSocket.open(base, apiKey, {
        ...(headers.origin ? { origin: headers.origin } : {}),
        ...(headers.host ? { headers: { host: headers.host } } : {}),
      }),
    );
    ws = 'upgraded';
  } catch (error) {
    ws = (error as Error).message.includes('403') ? 'refused' : (error as Error).message;
  }
  return { mcp, ws };
}

const REFUSED = { mcp: 403, ws: 'refused' };
const ALLOWED = { mcp: 200, ws: 'upgraded' };

describe('Origin: loopback is compared exactly, not by prefix', () => {
  it('refuses the prefix, suffix and userinfo tricks on /mcp and /ws/connect', async () => {
    const s = await server();
    const tricks = [
      // prefix: a name that starts like loopback
      'http://127.attacker.example',
      'http://localhost.attacker.example',
      `http://127.0.0.1.nip.io:${s.port}`,
      // suffix: loopback inside a longer name
      'http://attacker.localhost.example',
      `http://attacker.example.127.0.0.1.nip.io:${s.port}`,
      // userinfo and fragment: loopback where the host is not
      'http://127.0.0.1@attacker.example',
      `http://localhost:${s.port}@attacker.example`,
      'http://attacker.example#@127.0.0.1',
      // not an origin at all
      'null',
      `http://localhost:${s.port}/path`,
      `ftp://127.0.0.1:${s.port}`,
    ];
    const seen: Record<string, unknown> = {};
    for (const origin of tricks) seen[origin] = await answers(s, { origin });
    expect(seen).toEqual(Object.fromEntries(tricks.map((origin) => [origin, REFUSED])));
  });

  it('still accepts the real loopback origins on any port, and no Origin at all', async () => {
    const s = await server();
    const origins = [
      `http://localhost:${s.port}`,
      `http://127.0.0.1:${s.port}`,
      'http://[::1]:5173',
      'https://localhost',
    ];
    const seen: Record<string, unknown> = {};
    for (const origin of origins) seen[origin] = await answers(s, { origin });
    seen['(none)'] = await answers(s, {});
    expect(seen).toEqual(
      Object.fromEntries([...origins, '(none)'].map((origin) => [origin, ALLOWED])),
    );
  });

  it('with PUBLIC_URL, accepts its origin only: not loopback, not look-alikes', async () => {
    const s = await server({ PUBLIC_URL: 'https://engram.example.com/app' });
    const origins = {
      'https://engram.example.com': ALLOWED,
      'https://engram.example.com.attacker.example': REFUSED,
      'https://engram.example.com@attacker.example': REFUSED,
      'https://attacker.example#@engram.example.com': REFUSED,
      'http://engram.example.com': REFUSED,
      [`http://localhost:${s.port}`]: REFUSED,
      [`http://127.0.0.1:${s.port}`]: REFUSED,
    };
    const seen: Record<string, unknown> = {};
    for (const origin of Object.keys(origins)) seen[origin] = await answers(s, { origin });
    expect(seen).toEqual(origins);
  });
});

describe('Host: a loopback-bound server accepts loopback names exactly', () => {
  it('refuses look-alike Host names on /mcp and /ws/connect (DNS rebinding)', async () => {
    const s = await server();
    const hosts = [
      '127.attacker.example',
      `127.0.0.1.nip.io:${s.port}`,
      `localhost.attacker.example:${s.port}`,
      'attacker.localhost.example',
      `127.0.0.1@attacker.example:${s.port}`,
      `attacker.example#@127.0.0.1:${s.port}`,
      `localhost/..:${s.port}`,
    ];
    const seen: Record<string, unknown> = {};
    for (const host of hosts) seen[host] = await answers(s, { host });
    expect(seen).toEqual(Object.fromEntries(hosts.map((host) => [host, REFUSED])));
  });

  it('accepts localhost, 127.0.0.1 and [::1] with any port', async () => {
    const s = await server();
    const hosts = [`localhost:${s.port}`, `127.0.0.1:${s.port}`, `[::1]:${s.port}`, 'LOCALHOST'];
    const seen: Record<string, unknown> = {};
    for (const host of hosts) seen[host] = await answers(s, { host });
    expect(seen).toEqual(Object.fromEntries(hosts.map((host) => [host, ALLOWED])));
  });
});
