import { McpServer, type CallToolResult } from '@modelcontextprotocol/server';
import {
  CONTEXT_CHARS_DEFAULT,
  type Entity,
  mcpTools,
  RECALL_LIMIT_DEFAULT,
  type RecallAnswer,
  TYPE_PAGE_DEFAULT,
} from '@engram/shared';
import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import type { GraphService, MemoryGraph } from '../features/graph/index.js';
import { asOfArgument } from '../features/graph/index.js';
import type { HistoryService } from '../features/history/index.js';
import type { RecallService } from '../features/recall/index.js';
import type { Operation, UsageMeter } from '../features/usage/index.js';
import type { SpaceAuth } from '../lib/auth-context.js';
import { lackedPermission, lacksMessage, roleRefusal } from '../lib/space-access.js';
import { AppError, forbidden, fromDatabaseError } from '../lib/errors.js';
import type { EventBus } from '../realtime/event-bus.js';

export const GRAPH_RESOURCE_URI = 'memory://knowledge-graph';

export interface MemoryServerDeps {
  graph: GraphService;
  history: Pick<HistoryService, 'undoLast'>;
  recall: RecallService;
  usage: UsageMeter;
  bus: EventBus;
  /** The credential, and the space this server serves (its URL's: /mcp is `default`). */
  auth: SpaceAuth;
  log?: FastifyBaseLogger | undefined;
  /**
   * How graph changes reach this instance's client:
   * - `subscribe` (2025 era): `resources/subscribe` starts notifications on
   *   this connection, `resources/unsubscribe` stops them;
   * - `push` (2026 era on stdio): every change is sent, and the stdio entry's
   *   `subscriptions/listen` router passes it on to the listens that asked;
   * - `none` (2026 era over HTTP): a per-request instance; listens are served
   *   by the HTTP entry from the account's event bus (see http.ts).
   */
  updates: 'subscribe' | 'push' | 'none';
}

const writes = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};
const deletes = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: false,
};
const reads = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/**
 * Each tool's title, description, schemas and hints, built once: zod schemas
 * are costly to build and compile, and a 2026-era request gets a new server.
 */
const TOOLS = {
  create_entities: {
    title: 'Create Entities',
    description:
      'Create multiple new entities in the knowledge graph. Names that already exist are skipped; the same name twice in one call becomes one entity. Returns the entities created.',
    ...mcpTools.create_entities,
    annotations: writes,
  },
  create_relations: {
    title: 'Create Relations',
    description:
      'Create multiple new relations between entities in the knowledge graph. Relations should be in active voice. Both ends must exist; relations that already exist are skipped. Returns the relations created.',
    ...mcpTools.create_relations,
    annotations: writes,
  },
  add_observations: {
    title: 'Add Observations',
    description:
      'Add new observations to existing entities in the knowledge graph. Observations the entity already has are skipped.',
    ...mcpTools.add_observations,
    annotations: writes,
  },
  delete_entities: {
    title: 'Delete Entities',
    description: 'Delete multiple entities and their associated relations from the knowledge graph',
    ...mcpTools.delete_entities,
    annotations: deletes,
  },
  delete_observations: {
    title: 'Delete Observations',
    description: 'Delete specific observations from entities in the knowledge graph',
    ...mcpTools.delete_observations,
    annotations: deletes,
  },
  delete_relations: {
    title: 'Delete Relations',
    description: 'Delete multiple relations from the knowledge graph',
    ...mcpTools.delete_relations,
    annotations: deletes,
  },
  read_graph: {
    title: 'Read Graph',
    description:
      'Read the entire knowledge graph. With limit/offset, reads one page of entities (oldest first) with the relations that start at them.',
    ...mcpTools.read_graph,
    annotations: reads,
  },
  search_nodes: {
    title: 'Search Nodes',
    description:
      'Search for nodes in the knowledge graph based on a query. Matches entity names, types and observation content, case-insensitively; best matches first (exact name, name prefix, name, type, observation). Returns the relations touching the matches. To ask a question in plain words ("When did Maya start her new job?"), use `recall`.',
    ...mcpTools.search_nodes,
    annotations: reads,
  },
  open_nodes: {
    title: 'Open Nodes',
    description:
      'Open specific nodes in the knowledge graph by their names, with every relation touching them',
    ...mcpTools.open_nodes,
    annotations: reads,
  },
  update_entity: {
    title: 'Update Entity',
    description:
      'Rename an entity, change its type, or replace its metadata (a JSON object). Its observations and relations stay attached.',
    ...mcpTools.update_entity,
    annotations: { ...writes, idempotentHint: true },
  },
  get_neighbors: {
    title: 'Get Neighbors',
    description:
      'The entity and every entity within `depth` relations of it (either direction), nearest first, with the relations among them.',
    ...mcpTools.get_neighbors,
    annotations: reads,
  },
  find_path: {
    title: 'Find Path',
    description:
      'A shortest chain of relations between two entities, following relations in either direction. Returns found=false when none exists within maxDepth hops.',
    ...mcpTools.find_path,
    annotations: reads,
  },
  recall: {
    title: 'Recall',
    description:
      'Ask the memory a question in plain words ("When did Maya start her new job?", "what does the team use for CI"). Answers the individual observations that best answer it, best first, each with its entity — never whole entities. A question nothing answers gets few or no results. Filter with entityTypes or entityNames (exact names).',
    ...mcpTools.recall,
    annotations: reads,
  },
  get_context: {
    title: 'Get Context',
    description:
      'One block of text to put in a prompt: what the memory knows about a question — the best observations grouped by entity, with the relations among those entities — cut to maxChars.',
    ...mcpTools.get_context,
    annotations: reads,
  },
  undo_last: {
    title: 'Undo Last',
    description:
      'Undo the last write this credential made in this memory (a whole call: every entity, observation and relation it created, changed or deleted is put back), recorded as a change itself. Call again to undo the one before. Fails, naming what, when something it changed was changed since.',
    ...mcpTools.undo_last,
    annotations: {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    },
  },
  list_types: {
    title: 'List Types',
    description:
      'The entity types and relation types in use, with how many of each, most common first: one page of each list (100 unless `limit` says otherwise). When `nextCursor` is not null, call again with `cursor` set to it (and the same `prefix`) for the next page.',
    ...mcpTools.list_types,
    annotations: reads,
  },
};

const memoisedSchemas = new WeakSet<z.ZodType>();
type Options = Parameters<z.ZodType['~standard']['jsonSchema']['input']>[0];

/**
 * Makes `schema` convert to JSON Schema once. The SDK converts a tool's
 * schemas on every `tools/list`, and its output schema once per server
 * instance: for each request on the 2026 era (~0.25 ms of CPU). The converted
 * schemas are only read (listed, and checked for an object root).
 */
function convertedOnce(schema: z.ZodType): void {
  // Tools share some output schemas (graphOutput, successOutput): wrap each once.
  if (memoisedSchemas.has(schema)) return;
  memoisedSchemas.add(schema);
  const standard = schema['~standard'];
  const memoised = (convert: (options: Options) => Record<string, unknown>) => {
    const converted = new Map<string, Record<string, unknown>>();
    return (options: Options) => {
      const key = JSON.stringify(options);
      let json = converted.get(key);
      if (!json) converted.set(key, (json = convert(options)));
      return json;
    };
  };
  // Not enumerable, as zod keeps it: nothing that walks a schema's keys sees it.
  Object.defineProperty(schema, '~standard', {
    configurable: true,
    writable: true,
    enumerable: false,
    value: {
      ...standard,
      jsonSchema: {
        input: memoised(standard.jsonSchema.input),
        output: memoised(standard.jsonSchema.output),
      },
    },
  });
}

for (const tool of Object.values(TOOLS)) {
  convertedOnce(tool.inputSchema);
  convertedOnce(tool.outputSchema);
}

/**
 * JSON as an agent reads it: compact, not indented as the reference server
 * does (decision 014): the same content in fewer tokens, bytes and CPU.
 */
const asText = (value: unknown) => JSON.stringify(value);

function result(structured: Record<string, unknown>, text?: string): CallToolResult {
  return {
    content: [{ type: 'text', text: text ?? asText(structured) }],
    structuredContent: structured,
  };
}

/**
 * A graph answer in the reference server's shape; when the read limits cut
 * it, the text ends with a line saying so (the structured content keeps the
 * reference shape).
 */
function graphResult({ truncated, ...graph }: MemoryGraph): CallToolResult {
  const text = asText(graph);
  return result(graph, truncated ? `${text}\n\n(${truncated})` : text);
}

/** An entity as the reference server answers it: its name, type and observations' texts. */
const toMcpEntity = (entity: Entity) => ({
  name: entity.name,
  entityType: entity.type,
  observations: entity.observations.map((observation) => observation.content),
});

/**
 * Recall's answer as an agent reads it: one numbered line per observation,
 * with its entity and date, best first.
 */
function recallText(answer: RecallAnswer): string {
  if (answer.results.length === 0) return `Nothing in memory answers "${answer.query}".`;
  return answer.results
    .map(
      (hit, i) =>
        `${i + 1}. [${hit.entityName} (${hit.entityType}), ${hit.createdAt.slice(0, 10)}] ${hit.observation}`,
    )
    .join('\n');
}

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

  server.registerTool('create_entities', TOOLS.create_entities, ({ entities }) =>
    run({ type: 'create', resource: 'entity' }, async () => {
      const given = entities.map(({ entityType, ...entity }) => ({ ...entity, type: entityType }));
      const created = await graph.createEntities(auth, given, { existing: 'skip' });
      return result({ entities: created.map(toMcpEntity) });
    }),
  );

  server.registerTool('create_relations', TOOLS.create_relations, ({ relations }) =>
    run({ type: 'create', resource: 'relation' }, async () =>
      result({ relations: await graph.createRelationsByName(auth, relations) }),
    ),
  );

  server.registerTool('add_observations', TOOLS.add_observations, ({ observations }) =>
    run({ type: 'create', resource: 'observation' }, async () =>
      result({ results: await graph.addObservationsByName(auth, observations) }),
    ),
  );

  server.registerTool('delete_entities', TOOLS.delete_entities, ({ entityNames }) =>
    run({ type: 'delete', resource: 'entity' }, async () => {
      await graph.deleteEntitiesByName(auth, entityNames);
      const message = 'Entities deleted successfully';
      return result({ success: true, message }, message);
    }),
  );

  server.registerTool('delete_observations', TOOLS.delete_observations, ({ deletions }) =>
    run({ type: 'delete', resource: 'observation' }, async () => {
      await graph.deleteObservationsByName(auth, deletions);
      const message = 'Observations deleted successfully';
      return result({ success: true, message }, message);
    }),
  );

  server.registerTool('delete_relations', TOOLS.delete_relations, ({ relations }) =>
    run({ type: 'delete', resource: 'relation' }, async () => {
      await graph.deleteRelationsByName(auth, relations);
      const message = 'Relations deleted successfully';
      return result({ success: true, message }, message);
    }),
  );

  server.registerTool('read_graph', TOOLS.read_graph, ({ asOf, ...page }) =>
    run({ type: 'query', resource: 'graph' }, async () => {
      return graphResult(await graph.readGraph(auth, page, asOfArgument(asOf, 'asOf')));
    }),
  );

  server.registerTool('search_nodes', TOOLS.search_nodes, ({ query, asOf, ...page }) =>
    run({ type: 'query', resource: 'entity' }, async () => {
      return graphResult(await graph.searchNodes(auth, query, page, asOfArgument(asOf, 'asOf')));
    }),
  );

  server.registerTool('recall', TOOLS.recall, ({ query, limit, entityTypes, entityNames, asOf }) =>
    run({ type: 'query', resource: 'observation' }, async () => {
      const input = { query, limit: limit ?? RECALL_LIMIT_DEFAULT, entityTypes, entityNames };
      const answer = await deps.recall.recall(auth, input, asOfArgument(asOf, 'asOf'));
      return result(answer, recallText(answer));
    }),
  );

  server.registerTool('get_context', TOOLS.get_context, ({ query, maxChars }) =>
    run({ type: 'query', resource: 'observation' }, async () => {
      const answer = await deps.recall.context(auth, {
        query,
        maxChars: maxChars ?? CONTEXT_CHARS_DEFAULT,
      });
      return result(answer, answer.context || 'Nothing in memory answers that.');
    }),
  );

  server.registerTool('open_nodes', TOOLS.open_nodes, ({ names, asOf }) =>
    run({ type: 'query', resource: 'entity' }, async () => {
      return graphResult(await graph.openNodes(auth, names, asOfArgument(asOf, 'asOf')));
    }),
  );

  server.registerTool('undo_last', TOOLS.undo_last, () =>
    run({ type: 'update', resource: 'graph' }, async () => {
      const answer = await deps.history.undoLast(auth);
      return result(
        answer,
        `Undid the call of seq:${answer.reverted.callSeq} (${answer.reverted.changes} changes)`,
      );
    }),
  );

  // ── additions beyond the reference server ──────────────────────────────────

  server.registerTool(
    'update_entity',
    TOOLS.update_entity,
    ({ name, newName, entityType, metadata }) =>
      run({ type: 'update', resource: 'entity' }, async () => {
        const change = { name: newName, type: entityType, metadata };
        const entity = await graph.updateEntity(auth, { name }, change);
        return result({ entity: { ...toMcpEntity(entity), metadata: entity.metadata } });
      }),
  );

  server.registerTool('get_neighbors', TOOLS.get_neighbors, ({ name: start, depth, limit }) =>
    run({ type: 'query', resource: 'graph' }, async () =>
      graphResult(
        await graph.neighbours(auth, {
          name: start,
          depth: depth ?? 1,
          limit: limit ?? 100,
        }),
      ),
    ),
  );

  server.registerTool('find_path', TOOLS.find_path, ({ from, to, maxDepth }) =>
    run({ type: 'query', resource: 'graph' }, async () => {
      const found = await graph.shortestPath(auth, { from, to, maxDepth: maxDepth ?? 6 });
      if (found.found) return result(found);
      const structured = { found: false, path: [], relations: [] };
      const text = asText(structured);
      return found.searchedAll
        ? result(structured, text)
        : result(
            structured,
            `${text}\n\n(truncated: no path found within the read limits; the search stopped before covering every entity within ${maxDepth ?? 6} hops)`,
          );
    }),
  );

  server.registerTool('list_types', TOOLS.list_types, ({ limit, cursor, prefix }) =>
    run({ type: 'query', resource: 'entity' }, async () => {
      const types = await graph.listTypes(auth, {
        limit: limit ?? TYPE_PAGE_DEFAULT,
        cursor,
        prefix,
      });
      const text = asText(types);
      return types.nextCursor
        ? result(
            types,
            `${text}\n\n(truncated: more types follow; call list_types with cursor "${types.nextCursor}" and the same prefix for the next page)`,
          )
        : result(types, text);
    }),
  );

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
