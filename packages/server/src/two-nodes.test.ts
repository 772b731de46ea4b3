import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectEra, eventually, type EraClient } from './test/mcp-client.js';
import { startServerProcess, type ServerProcess } from './test/server-process.js';
import { Receiver } from './test/webhook-receiver.js';
import { TestSocket } from './test/ws-client.js';
import { answerConsent, pkce, TestBrowser, tokenRequest } from './test/oauth.js';

// Two real server processes ("nodes") on one PostgreSQL and one Redis, as
// behind a load balancer: MCP clients of both eras, and realtime sockets, on
// different nodes from the writer. Runs where both are configured (CI).
const databaseServer = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;
const GRAPH = 'memory://knowledge-graph';

function startNode(databaseUrl: string, env: NodeJS.ProcessEnv = {}): Promise<ServerProcess> {
  return startServerProcess({
    ...process.env,
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    ...env,
  });
}

/** A fresh database on the test server, its URL, and how to drop it. */
async function freshDatabase() {
  const name = `engram_test_${randomUUID().replaceAll('-', '')}`;
  const admin = new pg.Client({ connectionString: databaseServer });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(databaseServer!);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const admin = new pg.Client({ connectionString: databaseServer });
      await admin.connect();
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

async function stopNodes(nodes: ServerProcess[]) {
  for (const node of nodes) node.process.kill('SIGTERM');
  await Promise.all(
    nodes.map((node) => new Promise((resolve) => node.process.once('exit', resolve))),
  );
}

/**
 * Looks at the followers' leases every few milliseconds: which holder each
 * key (an account for the finder, an endpoint for webhooks) had, and any
 * key seen with two live holders at once.
 */
async function watchLeases(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const held = new Set<string>();
  const twoHolders: string[] = [];
  const applied = new Map<string, { applied: number; head: number }>();
  let samples = 0;
  let stopped = false;
  const look = async () => {
    const { rows } = await client.query<{ key: string; holder: string }>(`
      select 'finder ' || account_id as key, lease_holder::text as holder from duplicate_state
       where lease_until > now()
      union all
      select 'webhook ' || id, lease_holder::text from webhook_endpoints where lease_until > now()`);
    const holders = new Map<string, Set<string>>();
    for (const row of rows) {
      held.add(row.key);
      holders.set(row.key, (holders.get(row.key) ?? new Set()).add(row.holder));
    }
    for (const [key, set] of holders) if (set.size > 1) twoHolders.push(key);
    const state = await client.query<{ id: string; applied: number; head: number }>(`
      select s.account_id as id, s.applied_seq::float8 as applied, a.event_seq::float8 as head
        from duplicate_state s join accounts a on a.id = s.account_id where s.scan_seq is null`);
    for (const row of state.rows) applied.set(row.id, row);
    samples += 1;
  };
  const loop = (async () => {
    while (!stopped) {
      await look();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  return {
    held,
    twoHolders,
    get samples() {
      return samples;
    },
    /** Every account a finder held has been compared through its last event. */
    finderCaughtUp() {
      const accounts = [...held].flatMap((key) =>
        key.startsWith('finder ') ? [key.slice(7)] : [],
      );
      return (
        accounts.length > 0 &&
        accounts.every((id) => {
          const row = applied.get(id);
          return row !== undefined && row.applied >= row.head;
        })
      );
    },
    async stop() {
      stopped = true;
      await loop;
      await client.end();
    },
  };
}

async function register(node: ServerProcess) {
  const response = await fetch(`${node.url}/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      email: `${randomUUID()}@example.com`,
      password: 'Password123',
      firstName: 'Two',
      lastName: 'Nodes',
    }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { token: string; user: { apiKey: string } };
}

describe.skipIf(!databaseServer || !redisUrl)(
  'two nodes: MCP and realtime',
  { timeout: 120_000 },
  () => {
    let database: Awaited<ReturnType<typeof freshDatabase>>;
    const nodes: ServerProcess[] = [];
    const clients: EraClient[] = [];
    const sockets: TestSocket[] = [];

    beforeAll(async () => {
      database = await freshDatabase();
      // One node first, so it runs the migrations; then the second.
      // Webhooks are sent to a receiver of this test, on loopback.
      nodes.push(await startNode(database.url, { ALLOW_PRIVATE_NETWORK_TARGETS: 'true' }));
      nodes.push(await startNode(database.url, { ALLOW_PRIVATE_NETWORK_TARGETS: 'true' }));
    }, 90_000);

    afterAll(async () => {
      for (const socket of sockets) socket.close();
      await Promise.allSettled(clients.map((client) => client.close()));
      await stopNodes(nodes);
      await database?.drop();
    });

    it('a REST write on node B reaches its account on node A (both eras, sockets once each) and no other account', async () => {
      const [a, b] = nodes as [ServerProcess, ServerProcess];
      const owner = await register(a);
      const stranger = await register(b);

      // The 2026 era is stateless: the listener on A, the writer's account on B.
      const modernOnA = await connectEra('modern', a.url, owner.user.apiKey);
      // The 2025 era keeps its session on the node it opened it on.
      const legacyOnB = await connectEra('legacy', b.url, owner.user.apiKey);
      const strangerOnA = await connectEra('modern', a.url, stranger.user.apiKey);
      const strangerOnB = await connectEra('legacy', b.url, stranger.user.apiKey);
      clients.push(modernOnA, legacyOnB, strangerOnA, strangerOnB);
      const heard = {
        modernOnA: await modernOnA.watch(GRAPH),
        legacyOnB: await legacyOnB.watch(GRAPH),
        strangerOnA: await strangerOnA.watch(GRAPH),
        strangerOnB: await strangerOnB.watch(GRAPH),
      };

      const socketOnA = await TestSocket.open(a.url, owner.user.apiKey);
      const socketOnB = await TestSocket.open(b.url, owner.user.apiKey);
      sockets.push(socketOnA, socketOnB);
      for (const socket of [socketOnA, socketOnB]) {
        socket.send('subscribe_to_graph_changes');
        await socket.next((m) => m.type === 'subscribed');
      }

      const names = ['first', 'second', 'third'];
      for (const entity of names) {
        const created = await fetch(`${b.url}/api/entities`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${owner.token}`,
          },
          body: JSON.stringify({ name: entity, type: 'cross-node' }),
        });
        expect(created.status).toBe(201);
      }

      await eventually(() => heard.modernOnA.updates.length > 0, 10_000, 'the listener on node A');
      await eventually(() => heard.legacyOnB.updates.length > 0, 10_000, 'the session on node B');
      expect(heard.modernOnA.updates.every((uri) => uri === GRAPH)).toBe(true);

      // The 2025-era client keeps working on its node, and sees the same graph.
      const graph = await callTool<{ entities: { name: string }[] }>(legacyOnB, 'open_nodes', {
        names,
      });
      expect(graph.entities.map((entity) => entity.name)).toEqual(names);
      // The stateless client reads the same graph from the other node.
      const fromA = await callTool<{ entities: { name: string }[] }>(modernOnA, 'search_nodes', {
        query: 'cross-node',
      });
      expect(fromA.entities.map((entity) => entity.name).sort()).toEqual([...names].sort());

      // Each socket gets each event once, whichever node it is on.
      for (const socket of [socketOnA, socketOnB]) {
        await eventually(
          () => socket.messages.filter((m) => m.type === 'entity_created').length >= names.length,
          10_000,
          'every event on the socket',
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
      for (const socket of [socketOnA, socketOnB]) {
        const created = socket.messages
          .filter((m) => m.type === 'entity_created')
          .map((m) => (m.payload as { name: string }).name);
        expect(created).toEqual(names);
      }

      // Another account's listeners heard nothing, on either node, in either era.
      expect(heard.strangerOnA.updates).toEqual([]);
      expect(heard.strangerOnB.updates).toEqual([]);
    });

    it('a write in one space on node B reaches that space on node A, and no other space', async () => {
      const [a, b] = nodes as [ServerProcess, ServerProcess];
      const owner = await register(a);
      const post = (node: ServerProcess, path: string, body: unknown, space?: string) =>
        fetch(`${node.url}${path}`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${owner.token}`,
            ...(space ? { 'x-engram-space': space } : {}),
          },
          body: JSON.stringify(body),
        });
      // Created on A, used on B at once: every node reads the one spaces table.
      expect((await post(a, '/api/spaces', { name: 'Blue' })).status).toBe(201);
      const blueOnA = await connectEra('modern', a.url, owner.user.apiKey, '/mcp/blue');
      const defaultOnA = await connectEra('modern', a.url, owner.user.apiKey, '/mcp');
      clients.push(blueOnA, defaultOnA);
      const heard = { blue: await blueOnA.watch(GRAPH), other: await defaultOnA.watch(GRAPH) };
      const blueSocket = await TestSocket.open(a.url, owner.user.apiKey, {}, 'blue');
      const defaultSocket = await TestSocket.open(a.url, owner.user.apiKey);
      sockets.push(blueSocket, defaultSocket);
      for (const socket of [blueSocket, defaultSocket]) {
        socket.send('subscribe_to_graph_changes');
        await socket.next((m) => m.type === 'subscribed');
      }

      expect((await post(b, '/api/entities', { name: 'In blue', type: 'x' }, 'blue')).status).toBe(
        201,
      );
      await eventually(() => heard.blue.updates.length > 0, 10_000, 'the blue listener on node A');
      const event = await blueSocket.next((m) => m.type === 'entity_created');
      expect(event).toMatchObject({ space: 'blue', payload: { name: 'In blue' } });
      const found = await callTool<{ entities: { name: string }[] }>(blueOnA, 'search_nodes', {
        query: 'blue',
      });
      expect(found.entities.map((entity) => entity.name)).toEqual(['In blue']);

      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(heard.other.updates).toEqual([]);
      expect(defaultSocket.messages.filter((m) => m.type === 'entity_created')).toEqual([]);
    });

    it('removing a member on node B ends their socket and requests on node A at once', async () => {
      const [a, b] = nodes as [ServerProcess, ServerProcess];
      const owner = await register(a);
      const call = (
        node: ServerProcess,
        token: string,
        method: string,
        path: string,
        body?: unknown,
        account?: string,
      ) =>
        fetch(`${node.url}${path}`, {
          method,
          headers: {
            ...(body ? { 'content-type': 'application/json' } : {}),
            authorization: `Bearer ${token}`,
            ...(account ? { 'x-engram-account': account } : {}),
          },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
      const ownerMe = (await (await call(a, owner.token, 'GET', '/auth/me')).json()) as {
        currentAccountId: string;
      };
      const account = ownerMe.currentAccountId;
      // Teams need a plan for more than one person: set it as the operator would.
      const db = new pg.Client({ connectionString: database.url });
      await db.connect();
      await db.query(`update subscriptions set plan_id = 'team' where account_id = $1`, [account]);
      await db.end();
      const email = `${randomUUID()}@example.com`;
      const invited = await call(b, owner.token, 'POST', '/api/members/invitations', {
        email,
        role: 'member',
      });
      expect(invited.status).toBe(201);
      const token = new URL(((await invited.json()) as { url: string }).url).hash.slice(7);
      const signup = await fetch(`${a.url}/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password: 'Password123', firstName: 'Mem', lastName: 'Ber' }),
      });
      const member = (await signup.json()) as { token: string; user: { id: string } };
      expect(
        (await call(a, member.token, 'POST', '/api/invitations/accept', { token })).status,
      ).toBe(200);
      // Read on node A: the membership is cached there before the removal.
      const there = await call(a, member.token, 'GET', '/auth/me', undefined, account);
      const key = ((await there.json()) as { apiKey: string }).apiKey;
      const socket = await TestSocket.open(a.url, key);
      sockets.push(socket);

      expect((await call(b, owner.token, 'DELETE', `/api/members/${member.user.id}`)).status).toBe(
        200,
      );
      expect(await socket.closedWithin(10_000)).not.toBe('still open');
      const after = await call(a, member.token, 'GET', '/api/entities', undefined, account);
      expect(after.status).toBe(404);
    });

    it('a webhook endpoint gets each event once, in order, whichever node wrote it', async () => {
      const [a, b] = nodes as [ServerProcess, ServerProcess];
      const owner = await register(a);
      const receiver = await new Receiver().start();
      const post = (node: ServerProcess, path: string, body: unknown) =>
        fetch(`${node.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${owner.token}` },
          body: JSON.stringify(body),
        });
      try {
        const plan = await post(a, '/api/billing/change-plan', {
          planId: 'pro',
          priceId: 'price_pro_monthly',
        });
        expect(plan.status).toBe(200);
        expect(
          (await post(b, '/api/webhooks', { url: receiver.url, events: ['entity_created'] }))
            .status,
        ).toBe(201);
        // Both nodes poll for due endpoints and are woken by their own writes;
        // both nodes' duplicate finders follow the same account.
        const names = Array.from({ length: 40 }, (_, i) => `hook-${i}`);
        // And a twin from each node, for the finders (two more events).
        const sent = names.length + 2;
        const leases = await watchLeases(database.url);
        try {
          await Promise.all(
            [a, b].map(async (node, n) => {
              for (const name of names.filter((_, i) => i % 2 === n)) {
                expect((await post(node, '/api/entities', { name, type: 'x' })).status).toBe(201);
              }
              const twin = n === 0 ? 'Ada Lovelace' : 'ada lovelace';
              expect((await post(node, '/api/entities', { name: twin, type: 'x' })).status).toBe(
                201,
              );
            }),
          );
          await eventually(() => receiver.received.length >= sent, 20_000, 'deliveries');
          await eventually(() => leases.finderCaughtUp(), 30_000, 'the finder');
        } finally {
          await leases.stop();
        }
        // One holder per lease key at every look: an account for the finder, an endpoint for webhooks.
        expect(leases.samples).toBeGreaterThan(0);
        expect(leases.twoHolders).toEqual([]);
        expect([...leases.held].some((key) => key.startsWith('webhook '))).toBe(true);
        await new Promise((resolve) => setTimeout(resolve, 2_500));
        const ids = receiver.received.map((r) => r.event.id);
        expect(new Set(ids).size).toBe(ids.length);
        expect(ids).toHaveLength(sent);
        const seqs = ids.map((id) => Number(id.split('_').at(-1)));
        expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
      } finally {
        await receiver.close();
      }
    });
  },
);

describe.skipIf(!databaseServer || !redisUrl)('two nodes: OAuth', { timeout: 120_000 }, () => {
  // Behind one address (PUBLIC_URL), as a load balancer puts them.
  const publicUrl = 'http://engram.test';
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  const nodes: ServerProcess[] = [];

  beforeAll(async () => {
    database = await freshDatabase();
    nodes.push(await startNode(database.url, { PUBLIC_URL: publicUrl }));
    nodes.push(await startNode(database.url, { PUBLIC_URL: publicUrl }));
  }, 90_000);

  afterAll(async () => {
    await stopNodes(nodes);
    await database?.drop();
  });

  it('a grant made through node A gives tokens node B takes, and revoking on B cuts A off', async () => {
    const [a, b] = nodes as [ServerProcess, ServerProcess];
    const person = await register(a);
    const redirect = 'http://127.0.0.1:9/callback';
    const registration = await fetch(`${a.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Two Nodes Agent',
        redirect_uris: [redirect],
        token_endpoint_auth_method: 'none',
      }),
    });
    expect(registration.status).toBe(201);
    const { client_id } = (await registration.json()) as { client_id: string };

    // The browser starts on A; the person answers through B; the browser resumes on A.
    const { verifier, challenge } = pkce();
    const authorize = new URL('/oauth/authorize', a.url);
    const params = {
      client_id,
      response_type: 'code',
      redirect_uri: redirect,
      scope: 'memory:read memory:write',
      resource: `${publicUrl}/mcp`,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    };
    for (const [name, value] of Object.entries(params)) authorize.searchParams.set(name, value);
    const browser = new TestBrowser();
    const consent = await browser.follow(authorize.href, a.url);
    expect(consent.url.pathname).toBe('/oauth/consent');
    const uid = consent.url.searchParams.get('uid')!;
    const redirectTo = new URL(await answerConsent(b.url, person.token, uid, 'allow'));
    const landed = await browser.follow(
      new URL(`${redirectTo.pathname}${redirectTo.search}`, a.url).href,
      a.url,
    );
    const code = landed.url.searchParams.get('code');
    expect(code).toBeTruthy();

    const tokens = await tokenRequest(b.url, {
      grant_type: 'authorization_code',
      code: code!,
      redirect_uri: redirect,
      client_id,
      code_verifier: verifier,
      resource: `${publicUrl}/mcp`,
    });
    expect(tokens.status).toBe(200);

    const onA = await connectEra('legacy', a.url, tokens.body['access_token']!);
    const created = await callTool<{ entities: { name: string }[] }>(onA, 'create_entities', {
      entities: [{ name: 'Across nodes', entityType: 'note', observations: [] }],
    });
    expect(created.entities.map((entity) => entity.name)).toEqual(['Across nodes']);

    const grants = await fetch(`${b.url}/api/oauth/grants`, {
      headers: { authorization: `Bearer ${person.token}` },
    });
    const [grant] = ((await grants.json()) as { grants: { id: string }[] }).grants;
    const revoked = await fetch(`${b.url}/api/oauth/grants/${grant!.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${person.token}` },
    });
    expect(revoked.status).toBe(200);
    // The session on A is refused from now on, and the token opens nothing on either node.
    await expect(callTool(onA, 'read_graph')).rejects.toThrow();
    await onA.close().catch(() => undefined);
    for (const node of [a, b]) {
      const refused = await fetch(`${node.url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${tokens.body['access_token']}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(refused.status).toBe(401);
    }
  });
});
