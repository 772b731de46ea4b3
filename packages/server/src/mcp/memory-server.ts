import { McpServer, type CallToolResult } from '@modelcontextprotocol/server';
import {
  CONTEXT_CHARS_DEFAULT,
  DUPLICATES_PAGE_DEFAULT,
  type Entity,
  RECALL_LIMIT_DEFAULT,
  type RecallAnswer,
  TYPE_PAGE_DEFAULT,
} from '@engram/shared';
import type { FastifyBaseLogger } from 'fastify';
import { TOOLS } from './tools.js';
import { installMcpApps } from './apps/index.js';
import type { GraphService, MemoryGraph } from '../features/graph/index.js';
import { asOfArgument, type ReadsService } from '../features/reads/index.js';
import type { DuplicatesService } from '../features/duplicates/index.js';
import type { HistoryService } from '../features/history/index.js';
import { factDate, type RecallService } from '../features/recall/index.js';
import type { Operation, UsageMeter } from '../features/usage/index.js';
import type { SpaceAuth } from '../lib/auth-context.js';
import { lackedPermission, lacksMessage, roleRefusal } from '../lib/space-access.js';
import { AppError, forbidden, fromDatabaseError } from '../lib/errors.js';
import type { EventBus } from '../realtime/event-bus.js';

export const GRAPH_RESOURCE_URI = 'memory://knowledge-graph';

export interface MemoryServerDeps {
  graph: GraphService;
  /** The reads that take `asOf`: the present or the past. */
  reads: ReadsService;
  history: Pick<HistoryService, 'undoLast' | 'entityHistory' | 'revertChange'>;
  duplicates: Pick<DuplicatesService, 'listDuplicates' | 'mergeEntities' | 'dismissDuplicate'>;
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
  /** The web app's build, whose `mcp-apps/` holds the MCP Apps views (`WEB_DIST_DIR`). */
  webDistDir?: string | undefined;
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
 * with its entity and the fact's date (when it held, else "noted" and when
 * it was written), best first.
 */
function recallText(answer: RecallAnswer): string {
  if (answer.abstained) {
    return `Nothing in memory answers "${answer.query}": the best matches were too weak (pass abstain: false for best-effort results).`;
  }
  if (answer.results.length === 0) return `Nothing in memory answers "${answer.query}".`;
  return answer.results
    .map(
      (hit, i) =>
        `${i + 1}. [${hit.entityName} (${hit.entityType}), ${factDate(hit) ?? `noted ${hit.createdAt.slice(0, 10)}`}] ${hit.observation}`,
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

  // MCP Apps: the views and their tools, only for clients that declare the extension.
  installMcpApps(server, { ...deps, run, writeRefusal: () => refusal(auth, 'write') });

  server.registerTool('create_entities', TOOLS.create_entities, ({ entities }) =>
    run({ type: 'create', resource: 'entity' }, async () => {
      const given = entities.map(({ entityType, ...entity }) => ({ ...entity, type: entityType }));
      const { created, possibleDuplicates: likely } = await graph.createEntitiesNamingDuplicates(
        auth,
        given,
        { existing: 'skip' },
        (error) => deps.log?.warn({ err: error }, 'likely duplicates lookup failed'),
      );
      const answer = { entities: created.map(toMcpEntity) };
      const possibleDuplicates = likely.map(({ of, other, score }) => ({
        name: of.name,
        duplicateOf: other.name,
        score,
      }));
      const line = `Possible duplicates: ${possibleDuplicates
        .map((item) => `"${item.name}" may be "${item.duplicateOf}" (${item.score.toFixed(2)})`)
        .join('; ')}. Merge with merge_entities or rename.`;
      const structured = { ...answer, possibleDuplicates };
      return result(
        structured,
        possibleDuplicates.length > 0 ? `${asText(structured)}\n\n${line}` : asText(structured),
      );
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
      return graphResult(await deps.reads.readGraph(auth, page, asOfArgument(asOf, 'asOf')));
    }),
  );

  server.registerTool('search_nodes', TOOLS.search_nodes, ({ query, asOf, ...page }) =>
    run({ type: 'query', resource: 'entity' }, async () => {
      return graphResult(
        await deps.reads.searchNodes(auth, query, page, asOfArgument(asOf, 'asOf')),
      );
    }),
  );

  server.registerTool('recall', TOOLS.recall, ({ query, limit, asOf, ...filters }) =>
    run({ type: 'query', resource: 'observation' }, async () => {
      const input = { query, limit: limit ?? RECALL_LIMIT_DEFAULT, ...filters };
      const answer = await deps.recall.recall(auth, input, asOfArgument(asOf, 'asOf'));
      return result(answer, recallText(answer));
    }),
  );

  server.registerTool('get_context', TOOLS.get_context, ({ query, maxChars, ...time }) =>
    run({ type: 'query', resource: 'observation' }, async () => {
      const answer = await deps.recall.context(auth, {
        query,
        maxChars: maxChars ?? CONTEXT_CHARS_DEFAULT,
        ...time,
      });
      const nothing = answer.abstained
        ? 'Nothing in memory answers that: the best matches were too weak (pass abstain: false for best-effort context).'
        : 'Nothing in memory answers that.';
      return result(answer, answer.context || nothing);
    }),
  );

  server.registerTool('open_nodes', TOOLS.open_nodes, ({ names, asOf }) =>
    run({ type: 'query', resource: 'entity' }, async () => {
      return graphResult(await deps.reads.openNodes(auth, names, asOfArgument(asOf, 'asOf')));
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

  server.registerTool('find_duplicates', TOOLS.find_duplicates, ({ limit, cursor }) =>
    run({ type: 'query', resource: 'entity' }, async () => {
      const page = await deps.duplicates.listDuplicates(auth, {
        limit: limit ?? DUPLICATES_PAGE_DEFAULT,
        cursor,
      });
      const lines = page.candidates.map(
        (candidate) =>
          `${candidate.entities.map((entity) => `"${entity.name}" (${entity.type})`).join(' and ')}: ${candidate.score.toFixed(2)}, ${candidate.reasons.join('; ')}`,
      );
      const text =
        lines.length === 0
          ? 'No likely duplicates found.'
          : `${lines.join('\n')}\n\nMerge a pair with merge_entities, naming the entity to keep as target.`;
      return page.nextCursor
        ? result(
            page,
            `${text}\n\n(truncated: more pairs follow; call find_duplicates with cursor "${page.nextCursor}" for the next page)`,
          )
        : result(page, text);
    }),
  );

  server.registerTool(
    'merge_entities',
    TOOLS.merge_entities,
    ({ target, sources, name, entityType }) =>
      run({ type: 'update', resource: 'entity' }, async () => {
        const answer = await deps.duplicates.mergeEntities(auth, {
          target,
          sources,
          name,
          type: entityType,
        });
        const structured = {
          entity: { ...toMcpEntity(answer.entity), aliases: answer.entity.aliases },
          merged: answer.merged,
          callSeq: answer.callSeq,
        };
        return result(
          structured,
          `Merged ${answer.merged.entities} ${answer.merged.entities === 1 ? 'entity' : 'entities'} into "${answer.entity.name}" (${answer.merged.observations} observations and ${answer.merged.relations} relations moved, ${answer.merged.duplicatesDropped} repeats dropped). Undo with undo_last.`,
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
