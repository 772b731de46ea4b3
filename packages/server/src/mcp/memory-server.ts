import { McpServer, type CallToolResult } from '@modelcontextprotocol/server';
import type { MemoryServerDeps } from './memory-server-deps.js';
import { registerMemoryTools } from './tools/index.js';
import { asText } from './tools/answers.js';
import { installMcpApps } from './apps/index.js';
import type { Operation } from '../features/usage/index.js';
import type { SpaceAuth } from '../lib/auth-context.js';
import { lackedPermission, lacksMessage, roleRefusal } from '../lib/space-access.js';
import { AppError, forbidden, fromDatabaseError } from '../lib/errors.js';

export {
  memoryServicesOf,
  type MemoryServerDeps,
  type MemoryServices,
} from './memory-server-deps.js';

export const GRAPH_RESOURCE_URI = 'memory://knowledge-graph';

/** What the credential lacks to read or write the server's space, said as it is told. */
function refusal(auth: SpaceAuth, access: 'read' | 'write'): string | undefined {
  const refused = roleRefusal(auth, access);
  if (refused) return refused;
  const lacking = lackedPermission(auth, auth.space.slug, access);
  if (!lacking) return undefined;
  // A connected app's grant is in OAuth scopes: name the scope it would need.
  return lacksMessage(auth, auth.credential.kind === 'oauth' ? `memory:${access}` : lacking);
}

/** Refuses a read or subscription the credential does not cover (a JSON-RPC error). */
export function requireRead(auth: SpaceAuth): void {
  const refused = refusal(auth, 'read');
  if (refused) throw forbidden(refused);
}

/**
 * One MCP server per session, acting for one account: the reference memory
 * server's nine tools and resource, plus richer tools, all over the shared
 * graph services.
 */
export function createMemoryServer(deps: MemoryServerDeps): McpServer {
  const { graph, auth } = deps;
  const server = new McpServer(
    { name: 'engram', version: '0.1.0' },
    {
      // Subscribable on both eras: `resources/subscribe` (2025) and
      // `subscriptions/listen` with `resourceSubscriptions` (2026-07-28).
      capabilities: { resources: { subscribe: true } },
      instructions:
        'Engram is a persistent knowledge graph. Entities have a unique name, a type and observations; relations connect two entities by name in active voice.',
    },
  );

  /**
   * Meters the call like its REST twin (refused past the plan's monthly
   * operations); service failures become tool errors an agent can act on.
   */
  async function run(
    operation: Operation,
    fn: () => Promise<CallToolResult>,
  ): Promise<CallToolResult> {
    const refused = refusal(auth, operation.type === 'query' ? 'read' : 'write');
    // Refused before it is metered: nothing was done.
    if (refused) return { isError: true, content: [{ type: 'text', text: refused }] };
    const started = performance.now();
    let admitted = false;
    try {
      await deps.usage.assertWithinPlan(auth.accountId);
      admitted = true;
      const outcome = await fn();
      deps.usage.record(auth.accountId, operation, performance.now() - started);
      return outcome;
    } catch (error) {
      // A failed call does not count against the plan's monthly operations.
      if (admitted) await deps.usage.release(auth.accountId);
      const known = error instanceof AppError ? error : fromDatabaseError(error);
      if (known) return { isError: true, content: [{ type: 'text', text: known.message }] };
      deps.log?.error({ err: error }, 'MCP tool failed');
      return { isError: true, content: [{ type: 'text', text: 'Internal error; please retry.' }] };
    }
  }

  // MCP Apps: the views and their tools, only for clients that declare the extension.
  installMcpApps(server, { ...deps, run, writeRefusal: () => refusal(auth, 'write') });

  // The tools of shared's table, in its order, each handled in tools/<purpose>.ts.
  registerMemoryTools(server, { graph, auth, deps, run });

  server.registerResource(
    'knowledge-graph',
    GRAPH_RESOURCE_URI,
    {
      title: 'Knowledge Graph',
      description: 'The full knowledge graph with all entities and relations',
      mimeType: 'application/json',
    },
    // Metered and bounded like read_graph; a cut graph carries a "truncated" field saying so.
    async (uri) => {
      requireRead(auth);
      const started = performance.now();
      await deps.usage.assertWithinPlan(auth.accountId);
      const text = asText(await graph.readGraph(auth));
      deps.usage.record(
        auth.accountId,
        { type: 'query', resource: 'graph' },
        performance.now() - started,
      );
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text }] };
    },
  );

  // Clients hear of every committed change to the space's graph, whoever
  // made it (REST, another agent, the web app, another node), and of no other
  // space's: the bus is subscribed by account, its events kept by space.
  let stopListening: (() => void) | undefined;
  const listen = () => {
    if (stopListening) return;
    // A batch commits many events at once: tell the client once per batch.
    let queued = false;
    stopListening = deps.bus.subscribe(auth.accountId, (event) => {
      if (queued || event.spaceId !== auth.space.id) return;
      queued = true;
      setImmediate(() => {
        queued = false;
        if (!stopListening) return;
        server.server.sendResourceUpdated({ uri: GRAPH_RESOURCE_URI }).catch(() => undefined);
      });
    });
  };
  const stop = () => {
    stopListening?.();
    stopListening = undefined;
  };
  if (deps.updates === 'subscribe') {
    server.server.setRequestHandler('resources/subscribe', async (request) => {
      requireRead(auth);
      if (request.params.uri === GRAPH_RESOURCE_URI) listen();
      return {};
    });
    server.server.setRequestHandler('resources/unsubscribe', async (request) => {
      if (request.params.uri === GRAPH_RESOURCE_URI) stop();
      return {};
    });
  } else if (deps.updates === 'push') {
    listen();
  }
  server.server.onclose = stop;

  return server;
}
