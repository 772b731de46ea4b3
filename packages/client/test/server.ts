/**
 * A real Engram server for the client's tests: the server's own test harness
 * (an in-memory embedded database), listening on a random loopback port.
 */
import WebSocket from 'ws';
import { Engram, type EngramOptions } from '../src/index.js';
import { createTestApp, setPlan, signUp, type TestApp } from '../../server/src/test/harness.js';

export interface TestServer {
  t: TestApp;
  url: string;
  close(): Promise<void>;
}

export async function startServer(): Promise<TestServer> {
  // Webhook deliveries may reach the test's receiver on 127.0.0.1 over http.
  const t = await createTestApp({ ALLOW_PRIVATE_NETWORK_TARGETS: 'true' });
  const url = await t.app.listen({ port: 0, host: '127.0.0.1' });
  return { t, url, close: () => t.close() };
}

/** A new person with their own account: their session token, personal API key and id. */
export async function newAccount(server: TestServer, plan?: string) {
  const { token, user } = await signUp(server.t.app);
  if (plan) await setPlan(server.t, user.id, plan);
  return { token, apiKey: user.apiKey, userId: user.id };
}

/** A client of the test server (Node 20 has no global WebSocket: `ws`'s). */
export function clientFor(
  server: TestServer,
  apiKey: string,
  options: Partial<EngramOptions> = {},
): Engram {
  return new Engram({
    url: server.url,
    apiKey,
    WebSocket: WebSocket as unknown as EngramOptions['WebSocket'],
    ...options,
  });
}
